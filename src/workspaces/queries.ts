import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { forgetCachedSessions } from '../http/sessionCache.ts';

export const WorkspaceWithRoleRow = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  role: z.enum(['ADMIN', 'MEMBER']),
});
export type WorkspaceWithRoleRow = z.infer<typeof WorkspaceWithRoleRow>;

export const MemberRow = z.object({
  user_id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.enum(['ADMIN', 'MEMBER']),
  created_at: z.string(),
});
export type MemberRow = z.infer<typeof MemberRow>;

export async function insertWorkspace(db: Db, input: { id: string; name: string; creatorId: string }) {
  return db.one(sql.type(WorkspaceWithRoleRow)`
    with workspace as (
      insert into workspaces (id, name) values (${input.id}, ${input.name}) returning id, name, created_at
    ), membership as (
      insert into memberships (workspace_id, user_id, role) values (${input.id}, ${input.creatorId}, 'ADMIN')
    )
    select id, name, created_at, 'ADMIN' as role from workspace
  `);
}

export async function listWorkspacesOfUser(db: Db, userId: string) {
  // Named (parsed and planned once per connection): GET /api/auth/session runs it on every call,
  // the console's shell on every page.
  return db.any(sql.prepared('workspaces.of_user', WorkspaceWithRoleRow)`
    select w.id, w.name, w.created_at, m.role
    from memberships m join workspaces w on w.id = m.workspace_id
    where m.user_id = ${userId}
    order by w.created_at, w.id
  `);
}

export async function findWorkspaceOfUser(db: Db, workspaceId: string, userId: string) {
  return db.maybeOne(sql.type(WorkspaceWithRoleRow)`
    select w.id, w.name, w.created_at, m.role
    from memberships m join workspaces w on w.id = m.workspace_id
    where m.workspace_id = ${workspaceId} and m.user_id = ${userId}
  `);
}

export async function findWorkspaceById(db: Db, workspaceId: string) {
  return db.maybeOne(sql.type(z.object({ id: z.string(), name: z.string(), created_at: z.string() }))`
    select id, name, created_at from workspaces where id = ${workspaceId}
  `);
}

export async function listAllWorkspaces(db: Db) {
  return db.any(
    sql.type(z.object({ id: z.string(), name: z.string(), created_at: z.string(), members: z.number() }))`
      select w.id, w.name, w.created_at, (select count(*)::int from memberships m where m.workspace_id = w.id) as members
      from workspaces w order by w.created_at, w.id
    `,
  );
}

const memberColumns = sql.fragment`m.user_id, u.name, u.email, m.role, m.created_at`;

export async function listMembers(db: Db, workspaceId: string) {
  return db.any(sql.type(MemberRow)`
    select ${memberColumns} from memberships m join users u on u.id = m.user_id
    where m.workspace_id = ${workspaceId} order by m.created_at, m.user_id
  `);
}

export async function findMember(db: Db, workspaceId: string, userId: string) {
  return db.maybeOne(sql.type(MemberRow)`
    select ${memberColumns} from memberships m join users u on u.id = m.user_id
    where m.workspace_id = ${workspaceId} and m.user_id = ${userId}
  `);
}

export async function insertMember(db: Db, workspaceId: string, userId: string, role: string) {
  await db.query(sql.typeAlias('void')`
    insert into memberships (workspace_id, user_id, role) values (${workspaceId}, ${userId}, ${role})
  `);
}

export async function updateMemberRole(db: Db, workspaceId: string, userId: string, role: string) {
  forgetCachedSessions(userId);
  await db.query(sql.typeAlias('void')`
    update memberships set role = ${role} where workspace_id = ${workspaceId} and user_id = ${userId}
  `);
}

export async function deleteMember(db: Db, workspaceId: string, userId: string) {
  forgetCachedSessions(userId);
  await db.query(sql.typeAlias('void')`
    delete from memberships where workspace_id = ${workspaceId} and user_id = ${userId}
  `);
}

/** Locks the workspace's ADMIN memberships and counts them (last-ADMIN checks must not race). */
export async function lockAndCountAdmins(db: Db, workspaceId: string): Promise<number> {
  const rows = await db.any(sql.type(z.object({ user_id: z.string() }))`
    select user_id from memberships where workspace_id = ${workspaceId} and role = 'ADMIN' for update
  `);
  return rows.length;
}

export async function updateWorkspaceName(db: Db, workspaceId: string, name: string) {
  await db.query(sql.typeAlias('void')`update workspaces set name = ${name} where id = ${workspaceId}`);
}

/** The workspace's name, its row locked (a deletion must not race a rename or another deletion). */
export async function lockWorkspaceName(db: Db, workspaceId: string): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ name: z.string() }))`
    select name from workspaces where id = ${workspaceId} for update
  `);
}
