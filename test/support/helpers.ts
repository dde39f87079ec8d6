// Helpers shared by the tests of accounts, API keys, workspaces and the features built on them:
// form posts, members with a role, session cookies, and direct SQL on the test database for
// set-up the API deliberately cannot do.
import { expect } from 'chai';
import { sql, type Tx } from '../../src/db/pool.ts';
import { Client } from './client.ts';
import { PASSWORD, signedInUser } from './factories.ts';
import { server } from './server.ts';

export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Posts an HTML form (application/x-www-form-urlencoded). */
export function postForm(client: Client, path: string, fields: Record<string, string>) {
  return client.request('POST', path, {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** A new signed-in user added to the workspace with this role by its admin. */
export async function memberOf(admin: Client, workspaceId: string, role: 'ADMIN' | 'MEMBER') {
  const member = await signedInUser('Member');
  const added = await admin.post(`/api/workspaces/${workspaceId}/members`, {
    email: member.user.email,
    role,
  });
  expect(added.status, added.text).to.equal(201);
  return member;
}

/** Signs in with email and password on a fresh client. */
export async function signIn(email: string, password = PASSWORD) {
  const client = new Client();
  const response = await client.post('/api/auth/signin', { email, password });
  return { client, response };
}

/** The value of the session cookie a client holds (empty when it holds none). */
export function sessionCookieOf(client: Client): string {
  return /(?:^|; )sb\.sid=([^;]+)/.exec(client.cookieHeader)?.[1] ?? '';
}

/** A client that sends exactly this Cookie header. */
export function clientWithCookie(cookie: string): Client {
  const client = new Client();
  const request = client.request.bind(client);
  client.request = (method, path, options = {}) =>
    request(method, path, { ...options, headers: { cookie, ...options.headers } });
  return client;
}

/** Runs SQL on the test database (for set-up such as moving a timestamp into the past). */
export function testDb() {
  return server().context.db;
}

export { sql };

class RolledBack extends Error {}

/** Runs `body` in a transaction that is rolled back: the rows and the statistics it made go away. */
export async function inRolledBack(body: (tx: Tx) => Promise<void>) {
  try {
    await testDb().transaction(async (tx) => {
      await body(tx);
      throw new RolledBack();
    });
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error;
  }
}

/** The API's key-creation object (the CLI's `keys create --json` prints the same). */
export function expectCreatedKey(
  body: Record<string, unknown>,
  expected: { name: string; expiresAt: string },
) {
  expect(Object.keys(body).sort()).to.deep.equal(['createdAt', 'expiresAt', 'id', 'key', 'name', 'scopes']);
  expect(body).to.include(expected);
  expect(body.scopes).to.deep.equal(['contacts:read', 'events:write']);
  expect(body.id).to.match(/^key_[0-9A-Z]{26}$/);
  expect(body.key).to.match(/^sb_[A-Za-z0-9_-]{49}$/);
  expect(body.createdAt).to.match(ISO_MS);
}
