// API routes read who is signed in from the web process's session cache (src/http/sessionCache.ts)
// or, on a miss, with one query (src/http/session.ts, readSignedIn), not through express-session.
// The cache's promise: whatever ends or narrows a session — a sign-out, a password change, a
// removal or a role change — refuses the very next request in the process that did it; the same
// done in the database alone (another process) is heard by NOTIFY and refused within a second,
// where an entry would otherwise live 30 s. The idle and absolute lifetimes stay exact.
import { expect } from 'chai';
import { z } from 'zod';
import type { Client } from '../support/client.ts';
import { eventually, expectProblem, signedInUser, workspaceWithAdmin } from '../support/factories.ts';
import { clientWithCookie, memberOf, sessionCookieOf, sql, testDb } from '../support/helpers.ts';
import { server } from '../support/server.ts';

function sessionId(cookie: string): string {
  const decoded = decodeURIComponent(cookie);
  return decoded.slice(2, decoded.lastIndexOf('.'));
}

const members = (workspaceId: string) => `/api/workspaces/${workspaceId}/members`;

/** Uses the session a few times on the route, so that the process has it cached. */
async function warm(client: Client, path: string) {
  for (let i = 0; i < 3; i++) expect((await client.get(path)).status).to.equal(200);
}

/** Sets the session's lastSeenAt in the database only (an update no trigger announces). */
async function setLastSeenAt(sid: string, at: number) {
  await testDb().query(sql.typeAlias('void')`
    update sessions set sess = jsonb_set(sess::jsonb, '{lastSeenAt}', to_jsonb(${at}::bigint))::json
    where sid = ${sid}
  `);
}

/** What a change by another process sounds like: every web process forgets every session. */
async function announceEveryChange() {
  await testDb().query(sql.typeAlias('void')`notify switchboard_sessions`);
}

/**
 * Runs `change` with the triggers of sql/0059 disabled: the process that makes the change must
 * refuse the next request by itself, not because its own NOTIFY happened to arrive first.
 */
async function unannounced<T>(change: () => Promise<T>): Promise<T> {
  const triggers = [
    ['sessions', 'sessions_ended'],
    ['users', 'users_changed_for_sessions'],
    ['memberships', 'memberships_changed_for_sessions'],
  ] as const;
  const toggle = async (enable: boolean) => {
    for (const [table, trigger] of triggers) {
      const [t, g] = [sql.identifier([table]), sql.identifier([trigger])];
      await testDb().query(
        enable
          ? sql.typeAlias('void')`alter table ${t} enable trigger ${g}`
          : sql.typeAlias('void')`alter table ${t} disable trigger ${g}`,
      );
    }
  };
  await toggle(false);
  try {
    return await change();
  } finally {
    await toggle(true);
  }
}

async function statusOf(client: Client, path: string): Promise<number> {
  return (await client.get(path)).status;
}

describe('sessions on API routes: cached per process, ended at once', () => {
  it('refuses a signed-out session on a workspace route at the next request', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const replay = clientWithCookie(`sb.sid=${sessionCookieOf(client)}`);
    await warm(replay, members(workspaceId));
    await unannounced(async () => {
      expect((await client.post('/api/auth/signout')).status).to.equal(204);
      expectProblem(await replay.get(members(workspaceId)), 401);
    });
  });

  it('refuses a session another process ended (its row gone) within a second', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    await warm(client, members(workspaceId));
    await warm(client, '/api/auth/session');
    await testDb().query(
      sql.typeAlias('void')`delete from sessions where sid = ${sessionId(sessionCookieOf(client))}`,
    );
    await eventually(async () => (await statusOf(client, members(workspaceId))) === 401, 1_000);
    expectProblem(await client.get('/api/auth/session'), 401);
  });

  it('answers 404 within a second once another process removes the membership', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    await warm(client, members(workspaceId));
    await testDb().query(
      sql.typeAlias(
        'void',
      )`delete from memberships where workspace_id = ${workspaceId} and user_id = ${user.id}`,
    );
    await eventually(async () => (await statusOf(client, members(workspaceId))) === 404, 1_000);
  });

  it('answers 403 within a second once another process demotes an ADMIN', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const keys = `/api/workspaces/${workspaceId}/keys`;
    await warm(client, keys);
    await testDb().query(sql.typeAlias('void')`
      update memberships set role = 'MEMBER' where workspace_id = ${workspaceId} and user_id = ${user.id}
    `);
    await eventually(async () => (await statusOf(client, keys)) === 403, 1_000);
  });

  it('shows a name another process changed within a second', async () => {
    const { client, user } = await signedInUser();
    await warm(client, '/api/auth/session');
    await testDb().query(
      sql.typeAlias('void')`update users set name = 'Renamed Elsewhere' where id = ${user.id}`,
    );
    await eventually(
      async () => (await client.get('/api/auth/session')).body.user?.name === 'Renamed Elsewhere',
      1_000,
    );
  });

  it('refuses a removed member, and a demoted ADMIN, at the next request in the process that did it', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const demoted = await memberOf(client, workspaceId, 'ADMIN');
    const removed = await memberOf(client, workspaceId, 'MEMBER');
    const keys = `/api/workspaces/${workspaceId}/keys`;
    await warm(demoted.client, keys);
    await warm(removed.client, members(workspaceId));
    await unannounced(async () => {
      const patched = await client.patch(`${members(workspaceId)}/${demoted.user.id}`, { role: 'MEMBER' });
      expect(patched.status, patched.text).to.equal(200);
      expectProblem(await demoted.client.get(keys), 403);
      const deleted = await client.delete(`${members(workspaceId)}/${removed.user.id}`);
      expect(deleted.status, deleted.text).to.equal(204);
      expectProblem(await removed.client.get(members(workspaceId)), 404);
    });
  });

  it('shows a changed name at the next request in the process that changed it', async () => {
    const { client } = await signedInUser();
    await warm(client, '/api/auth/session');
    await unannounced(async () => {
      const changed = await client.patch('/api/auth/profile', { name: 'Renamed Here' });
      expect(changed.status, changed.text).to.equal(200);
      expect((await client.get('/api/auth/session')).body.user.name).to.equal('Renamed Here');
    });
  });

  it('serves a cached session from memory: a change no trigger announces is not read until one is', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    await warm(client, members(workspaceId));
    // Idle by the database's lastSeenAt, fresh by the cache's: the cache answers.
    const idle = server().context.config.SESSION_IDLE_TIMEOUT_MS;
    await setLastSeenAt(sessionId(sessionCookieOf(client)), Date.now() - idle - 60_000);
    expect((await client.get(members(workspaceId))).status).to.equal(200);
    await announceEveryChange();
    await eventually(async () => (await statusOf(client, members(workspaceId))) === 401, 1_000);
  });

  it('ends an idle session on a workspace route, deleting its row', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const sid = sessionId(sessionCookieOf(client));
    const idle = server().context.config.SESSION_IDLE_TIMEOUT_MS;
    await setLastSeenAt(sid, Date.now() - idle - 60_000);
    // The cached times are fresh; once the cache is dropped, the database's are read.
    await announceEveryChange();
    await eventually(async () => (await statusOf(client, members(workspaceId))) === 401, 1_000);
    const left = await testDb().oneFirst(
      sql.type(z.object({ n: z.number() }))`select count(*)::int as n from sessions where sid = ${sid}`,
    );
    expect(left).to.equal(0);
  });

  it('refreshes lastSeenAt from a workspace route once it is a minute old', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const sid = sessionId(sessionCookieOf(client));
    await setLastSeenAt(sid, Date.now() - 120_000);
    await announceEveryChange();
    const lastSeenAt = async () =>
      testDb().oneFirst(sql.type(z.object({ at: z.number() }))`
        select (sess->>'lastSeenAt')::bigint as at from sessions where sid = ${sid}
      `);
    await eventually(async () => {
      expect((await client.get(members(workspaceId))).status).to.equal(200);
      return (await lastSeenAt()) > Date.now() - 10_000;
    }, 1_000);
  });

  it('refuses a session cookie whose signature is not the server’s, and one that is not signed', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const cookie = decodeURIComponent(sessionCookieOf(client));
    const forged = clientWithCookie(`sb.sid=${encodeURIComponent(cookie.replace(/\.[^.]+$/, '.AAAA'))}`);
    expectProblem(await forged.get(members(workspaceId)), 401);
    const unsigned = clientWithCookie(`sb.sid=${encodeURIComponent(sessionId(sessionCookieOf(client)))}`);
    expectProblem(await unsigned.get(members(workspaceId)), 401);
  });

  it('answers GET /api/auth/session for a signed-in user whose session cookie is among others', async () => {
    const { client, user } = await signedInUser();
    const crowded = clientWithCookie(`theme=dark; sb.sid=${sessionCookieOf(client)}; other=1`);
    const response = await crowded.get('/api/auth/session');
    expect(response.status, response.text).to.equal(200);
    expect(response.body.user.id).to.equal(user.id);
  });
});
