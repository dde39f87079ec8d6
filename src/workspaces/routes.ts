import { z } from 'zod';
import type { Principal } from '../http/principal.ts';
import { access, defineRoute } from '../http/route.ts';
import { WorkspaceParams } from '../http/validation.ts';
import { findWorkspaceOfUser, listMembers, listWorkspacesOfUser } from './queries.ts';
import {
  ChangeMemberBody,
  CreateWorkspaceBody,
  DeleteWorkspaceBody,
  MemberParams,
  MemberSchema,
  RenameWorkspaceBody,
  WorkspaceSchema,
} from './schemas.ts';
import {
  changeMemberRole,
  createWorkspace,
  deleteWorkspace,
  removeMember,
  renameWorkspace,
  toMember,
  toWorkspace,
} from './service.ts';

const tags = ['Workspaces'];

const LAST_ADMIN_LEAVING =
  'You are the last ADMIN of this workspace: make another member ADMIN first, or delete the workspace.';

function sessionUserId(principal: Principal): string {
  if (principal.kind !== 'session') throw new Error('session route reached without a session');
  return principal.userId;
}

export const workspaceRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/workspaces',
    operationId: 'workspaces.list',
    summary: "List the caller's workspaces with the caller's role in each",
    tags,
    access: access.user,
    responses: { 200: { description: 'The workspaces', schema: z.array(WorkspaceSchema) } },
    handler: async ({ app, principal }) => ({
      status: 200,
      body: (await listWorkspacesOfUser(app.db, sessionUserId(principal))).map(toWorkspace),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/workspaces',
    operationId: 'workspaces.create',
    summary: 'Create a workspace; the creator becomes its ADMIN',
    tags,
    access: access.user,
    body: CreateWorkspaceBody,
    responses: { 201: { description: 'The new workspace', schema: WorkspaceSchema } },
    handler: async ({ app, principal, body }) => ({
      status: 201,
      body: await createWorkspace(app.db, { name: body.name, creatorId: sessionUserId(principal) }),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}',
    operationId: 'workspaces.get',
    summary: 'Get one workspace',
    tags,
    access: access.workspace(null),
    params: WorkspaceParams,
    responses: { 200: { description: 'The workspace', schema: WorkspaceSchema } },
    handler: async ({ app, principal, workspaceId }) => ({
      status: 200,
      body: toWorkspace((await findWorkspaceOfUser(app.db, workspaceId, sessionUserId(principal)))!),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/workspaces/{workspaceId}',
    operationId: 'workspaces.rename',
    summary: 'Rename the workspace',
    tags,
    access: access.workspace(null, { admin: true }),
    params: WorkspaceParams,
    body: RenameWorkspaceBody,
    responses: { 200: { description: 'The renamed workspace', schema: WorkspaceSchema } },
    handler: async ({ app, principal, workspaceId, body }) => ({
      status: 200,
      body: await renameWorkspace(app.db, workspaceId, sessionUserId(principal), body.name),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/workspaces/{workspaceId}',
    operationId: 'workspaces.delete',
    summary: 'Delete the workspace and everything in it',
    description:
      'Permanent: contacts, events, segments, campaigns, scores, keys, webhooks, members and ' +
      "invitations all go. The body must repeat the workspace's name (`confirmName`).",
    tags,
    access: access.workspace(null, { admin: true }),
    params: WorkspaceParams,
    body: DeleteWorkspaceBody,
    responses: { 204: { description: 'Deleted' } },
    errors: { 400: 'The request is invalid, or `confirmName` is not the workspace’s name.' },
    handler: async ({ app, workspaceId, body }) => {
      await deleteWorkspace(app.db, workspaceId, body.confirmName);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/workspaces/{workspaceId}/leave',
    operationId: 'workspaces.leave',
    summary: 'Leave the workspace (any member; not the last ADMIN)',
    tags,
    access: access.workspace(null),
    params: WorkspaceParams,
    responses: { 204: { description: 'No longer a member' } },
    errors: { 409: 'The caller is the last ADMIN: promote another member, or delete the workspace.' },
    handler: async ({ app, principal, workspaceId }) => {
      await removeMember(app.db, workspaceId, sessionUserId(principal), LAST_ADMIN_LEAVING);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/members',
    operationId: 'members.list',
    summary: 'List the members of a workspace',
    tags,
    access: access.workspace(null),
    params: WorkspaceParams,
    responses: { 200: { description: 'The members', schema: z.array(MemberSchema) } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: (await listMembers(app.db, workspaceId)).map(toMember),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/workspaces/{workspaceId}/members/{userId}',
    operationId: 'members.update',
    summary: "Change a member's role",
    tags,
    access: access.workspace(null, { admin: true }),
    params: MemberParams,
    body: ChangeMemberBody,
    responses: { 200: { description: 'The member with the new role', schema: MemberSchema } },
    errors: { 409: 'The member is the last ADMIN and cannot be demoted.' },
    handler: async ({ app, workspaceId, params, body }) => ({
      status: 200,
      body: await changeMemberRole(app.db, workspaceId, params.userId, body.role),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/workspaces/{workspaceId}/members/{userId}',
    operationId: 'members.remove',
    summary: 'Remove a member from the workspace',
    tags,
    access: access.workspace(null, { admin: true }),
    params: MemberParams,
    responses: { 204: { description: 'Removed' } },
    errors: { 409: 'The member is the last ADMIN and cannot be removed.' },
    handler: async ({ app, workspaceId, params }) => {
      await removeMember(app.db, workspaceId, params.userId);
      return { status: 204 };
    },
  }),
];
