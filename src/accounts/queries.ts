import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { forgetCachedSessions } from '../http/sessionCache.ts';

export const UserRow = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  created_at: z.string(),
});
export type UserRow = z.infer<typeof UserRow>;

const UserWithHash = UserRow.extend({ password_hash: z.string() });

export async function insertUser(
  db: Db,
  input: { id: string; name: string; email: string; passwordHash: string },
): Promise<UserRow> {
  return db.one(sql.type(UserRow)`
    insert into users (id, name, email, password_hash)
    values (${input.id}, ${input.name}, ${input.email}, ${input.passwordHash})
    returning id, name, email, created_at
  `);
}

export async function findUserByEmailWithHash(db: Db, email: string) {
  return db.maybeOne(sql.type(UserWithHash)`
    select id, name, email, created_at, password_hash from users where email = ${email}
  `);
}

export async function findUserById(db: Db, id: string): Promise<UserRow | null> {
  return db.maybeOne(sql.type(UserRow)`select id, name, email, created_at from users where id = ${id}`);
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  return db.maybeOne(sql.type(UserRow)`select id, name, email, created_at from users where email = ${email}`);
}

export async function updateUserProfile(db: Db, id: string, input: { name: string; email: string }) {
  // GET /api/auth/session answers with the name and email a session cache holds.
  forgetCachedSessions(id);
  return db.one(sql.type(UserRow)`
    update users set name = ${input.name}, email = ${input.email}, updated_at = now() where id = ${id}
    returning id, name, email, created_at
  `);
}
