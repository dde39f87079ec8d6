import { z } from 'zod';
import { Email } from '../accounts/index.ts';
import { Timestamp, WorkspaceParams } from '../http/validation.ts';

export const RoleSchema = z.enum(['ADMIN', 'MEMBER']).openapi('Role');

export const WorkspaceSchema = z
  .object({ id: z.string(), name: z.string(), createdAt: Timestamp, role: RoleSchema })
  .openapi('Workspace');

const WorkspaceName = z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters');

export const CreateWorkspaceBody = z.strictObject({ name: WorkspaceName }).openapi('CreateWorkspaceRequest');

export const RenameWorkspaceBody = z.strictObject({ name: WorkspaceName }).openapi('RenameWorkspaceRequest');

export const DeleteWorkspaceBody = z
  .strictObject({
    confirmName: z.string().openapi({ description: "The workspace's current name, exactly." }),
  })
  .openapi('DeleteWorkspaceRequest');

export const MemberSchema = z
  .object({ userId: z.string(), name: z.string(), email: z.string(), role: RoleSchema, createdAt: Timestamp })
  .openapi('Member');

export const AddMemberBody = z.strictObject({ email: Email, role: RoleSchema }).openapi('AddMemberRequest');

export const InvitationSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: RoleSchema,
    invitedBy: z.string().nullable().openapi({ description: 'The inviting user (null once deleted).' }),
    expiresAt: Timestamp,
    createdAt: Timestamp,
    joinUrl: z.string().openapi({
      description:
        'Where the person joins: registration with this email filled in (PUBLIC_URL + /auth/register). Share it when no mail is sent.',
    }),
  })
  .openapi('Invitation');

export const CreatedInvitationSchema = InvitationSchema.extend({
  emailed: z.boolean().openapi({
    description:
      'true: an invitation mail is on its way to the email (SYSTEM_SMTP_URL is set). false: this server sends no mail; share `joinUrl`.',
  }),
}).openapi('CreatedInvitation');

export const InvitationParams = WorkspaceParams.extend({ invitationId: z.string() });
export const ChangeMemberBody = z.strictObject({ role: RoleSchema }).openapi('ChangeMemberRequest');
export const MemberParams = WorkspaceParams.extend({ userId: z.string() });
