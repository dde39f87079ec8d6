import { z } from 'zod';
import { Email } from '../accounts/schemas.ts';
import { Timestamp, WorkspaceParams } from '../http/validation.ts';

export const RoleSchema = z.enum(['ADMIN', 'MEMBER']).openapi('Role');

export const WorkspaceSchema = z
  .object({ id: z.string(), name: z.string(), createdAt: Timestamp, role: RoleSchema })
  .openapi('Workspace');

export const CreateWorkspaceBody = z
  .strictObject({ name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters') })
  .openapi('CreateWorkspaceRequest');

export const MemberSchema = z
  .object({ userId: z.string(), name: z.string(), email: z.string(), role: RoleSchema, createdAt: Timestamp })
  .openapi('Member');

export const AddMemberBody = z.strictObject({ email: Email, role: RoleSchema }).openapi('AddMemberRequest');
export const ChangeMemberBody = z.strictObject({ role: RoleSchema }).openapi('ChangeMemberRequest');
export const MemberParams = WorkspaceParams.extend({ userId: z.string() });
