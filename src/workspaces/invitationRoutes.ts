import { z } from 'zod';
import { actingUserId } from '../http/principal.ts';
import { access, defineRoute } from '../http/route.ts';
import { WorkspaceParams } from '../http/validation.ts';
import { inviteMember, listInvitations, revokeInvitation } from './invitations.ts';
import { AddMemberBody, CreatedInvitationSchema, InvitationParams, InvitationSchema } from './schemas.ts';

const tags = ['Workspaces'];
const adminSessionOnly = access.workspace(null, { admin: true });

export const invitationRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/workspaces/{workspaceId}/members',
    operationId: 'members.add',
    summary: 'Invite a person by email',
    description:
      'The answer is the same invitation whether or not the email has an account, so it tells ' +
      'nobody who is registered. A registered person becomes a member at once; anyone else when ' +
      'they register or sign in with this email before `expiresAt`. Inviting a pending email again ' +
      'renews its invitation with the new role (and mails it again). With SYSTEM_SMTP_URL set, the ' +
      'person is mailed who invited them to which workspace and how to join (`emailed: true`); ' +
      'otherwise share `joinUrl` with them.',
    tags,
    access: adminSessionOnly,
    params: WorkspaceParams,
    body: AddMemberBody,
    responses: { 201: { description: 'The invitation', schema: CreatedInvitationSchema } },
    errors: { 409: 'The person is already a member of this workspace.' },
    handler: async ({ app, principal, workspaceId, body }) => ({
      status: 201,
      body: await inviteMember(app, {
        workspaceId,
        email: body.email,
        role: body.role,
        invitedBy: actingUserId(principal),
      }),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/invitations',
    operationId: 'invitations.list',
    summary: 'List pending invitations (expired ones included, until revoked)',
    tags,
    access: adminSessionOnly,
    params: WorkspaceParams,
    responses: { 200: { description: 'The pending invitations', schema: z.array(InvitationSchema) } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await listInvitations(app, workspaceId),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/workspaces/{workspaceId}/invitations/{invitationId}',
    operationId: 'invitations.revoke',
    summary: 'Revoke a pending invitation',
    tags,
    access: adminSessionOnly,
    params: InvitationParams,
    responses: { 204: { description: 'Revoked' } },
    handler: async ({ app, workspaceId, params }) => {
      await revokeInvitation(app.db, workspaceId, params.invitationId);
      return { status: 204 };
    },
  }),
];
