import type { DatabasePool } from 'slonik';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { findUserByEmail, normaliseEmail } from '../accounts/index.ts';
import { recordAudit } from '../audit/index.ts';
import { currentActing } from '../core/actor.ts';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/pool.ts';
import type { Role } from '../http/principal.ts';
import { deleteWorkspaceRows } from './deletion.ts';
import {
  deleteMember,
  findMember,
  findWorkspaceById,
  findWorkspaceOfUser,
  insertMember,
  insertWorkspace,
  lockAndCountAdmins,
  lockWorkspaceName,
  type MemberRow,
  updateMemberRole,
  updateWorkspaceName,
  type WorkspaceWithRoleRow,
} from './queries.ts';

export type Workspace = { id: string; name: string; createdAt: string; role: Role };
export type Member = { userId: string; name: string; email: string; role: Role; createdAt: string };

export function toWorkspace(row: WorkspaceWithRoleRow): Workspace {
  return { id: row.id, name: row.name, createdAt: row.created_at, role: row.role };
}

export function toMember(row: MemberRow): Member {
  return { userId: row.user_id, name: row.name, email: row.email, role: row.role, createdAt: row.created_at };
}

export async function createWorkspace(
  db: Db,
  input: { name: string; creatorId: string },
): Promise<Workspace> {
  return toWorkspace(
    await insertWorkspace(db, {
      id: newId('workspace'),
      name: input.name.trim(),
      creatorId: input.creatorId,
    }),
  );
}

/** Adds a registered user at once (the CLI's `admin create`; the API invites instead). */
export async function addMember(
  db: Db,
  workspaceId: string,
  input: { email: string; role: Role },
): Promise<Member> {
  const user = await findUserByEmail(db, normaliseEmail(input.email));
  if (!user) throw new NotFoundError('User', 'No user has this email. They must register first.');
  try {
    await insertMember(db, workspaceId, user.id, input.role);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) {
      throw new ConflictError('This user is already a member of the workspace.', 'already-member');
    }
    throw error;
  }
  const member = toMember((await findMember(db, workspaceId, user.id))!);
  await db.transaction((tx) =>
    recordAudit(tx, { workspaceId, action: 'member.joined', targetId: user.id, after: member }),
  );
  return member;
}

const LAST_ADMIN = 'A workspace needs at least one ADMIN: promote another member first.';

export async function changeMemberRole(pool: DatabasePool, workspaceId: string, userId: string, role: Role) {
  return pool.transaction(async (tx) => {
    const admins = await lockAndCountAdmins(tx, workspaceId);
    const member = await findMember(tx, workspaceId, userId);
    if (!member) throw new NotFoundError('Member');
    if (member.role === 'ADMIN' && role !== 'ADMIN' && admins <= 1)
      throw new ConflictError(LAST_ADMIN, 'last-admin');
    await updateMemberRole(tx, workspaceId, userId, role);
    const [before, after] = [toMember(member), { ...toMember(member), role }];
    await recordAudit(tx, { workspaceId, action: 'member.roleChanged', targetId: userId, before, after });
    return after;
  });
}

/** Removes a member (an ADMIN's act, or a member leaving); the last ADMIN stays: 409. */
export async function removeMember(
  pool: DatabasePool,
  workspaceId: string,
  userId: string,
  lastAdminMessage = LAST_ADMIN,
): Promise<void> {
  await pool.transaction(async (tx) => {
    const admins = await lockAndCountAdmins(tx, workspaceId);
    const member = await findMember(tx, workspaceId, userId);
    if (!member) throw new NotFoundError('Member');
    if (member.role === 'ADMIN' && admins <= 1) throw new ConflictError(lastAdminMessage, 'last-admin');
    await deleteMember(tx, workspaceId, userId);
    const { actor } = currentActing();
    const action = actor.kind === 'user' && actor.userId === userId ? 'member.left' : 'member.removed';
    await recordAudit(tx, { workspaceId, action, targetId: userId, before: toMember(member) });
  });
}

export async function renameWorkspace(db: Db, workspaceId: string, userId: string, name: string) {
  return db.transaction(async (tx) => {
    const before = { name: await lockWorkspaceName(tx, workspaceId) };
    await updateWorkspaceName(tx, workspaceId, name.trim());
    const workspace = toWorkspace((await findWorkspaceOfUser(tx, workspaceId, userId))!);
    const after = { name: workspace.name };
    await recordAudit(tx, { workspaceId, action: 'workspace.renamed', targetId: workspaceId, before, after });
    return workspace;
  });
}

/**
 * Deletes the workspace with everything in it, once the caller has typed its name: a slip of the
 * id alone must not destroy a workspace.
 */
export async function deleteWorkspace(pool: DatabasePool, workspaceId: string, confirmName: string) {
  await pool.transaction(async (tx) => {
    const name = await lockWorkspaceName(tx, workspaceId);
    if (name === null) throw new NotFoundError('Workspace');
    if (confirmName !== name) {
      throw new ValidationError([
        {
          path: 'body.confirmName',
          message: 'must be the workspace’s name exactly, to confirm the deletion',
        },
      ]);
    }
    await deleteWorkspaceRows(tx, workspaceId);
  });
}

/** For commands given a workspace id: a clear error when there is no such workspace. */
export async function requireWorkspace({ db }: { db: Db }, workspaceId: string): Promise<void> {
  if (!(await findWorkspaceById(db, workspaceId)))
    throw new NotFoundError('Workspace', `No workspace ${workspaceId}.`);
}
