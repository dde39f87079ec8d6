// API routes read who is signed in with one query per request (src/http/session.ts, readSignedIn),
// not through express-session and with no cache: whatever ends a session or a membership — a
// sign-out, a password change, a removal, or the same done by another web process, which changes
// only the database — refuses the very next request.
import { expect } from 'chai';
import { z } from 'zod';
import { expectProblem, signedInUser, workspaceWithAdmin } from '../support/factories.ts';
import { clientWithCookie, sessionCookieOf, sql, testDb } from '../support/helpers.ts';
import { server } from '../support/server.ts';

function sessionId(cookie: string): string {
  const decoded = decodeURIComponent(cookie);
  return decoded.slice(2, decoded.lastIndexOf('.'));
}

const members = (workspaceId: string) => `/api/workspaces/${workspaceId}/members`;

describe('sessions on API routes: read per request, ended at once', () => {
  it('refuses a signed-out session on a workspace route at the next request', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const replay = clientWithCookie(`sb.sid=${sessionCookieOf(client)}`);
    expect((await replay.get(members(workspaceId))).status).to.equal(200);
    expect((await client.post('/api/auth/signout')).status).to.equal(204);
    expectProblem(await replay.get(members(workspaceId)), 401);
  });

  it('refuses a session another process ended (its row gone) at the next request', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    expect((await client.get(members(workspaceId))).status).to.equal(200);
    await testDb().query(
      sql.typeAlias('void')`delete from sessions where sid = ${sessionId(sessionCookieOf(client))}`,
    );
    expectProblem(await client.get(members(workspaceId)), 401);
    expectProblem(await client.get('/api/auth/session'), 401);
  });

  it('answers 404 at the next request once the membership is removed', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    expect((await client.get(members(workspaceId))).status).to.equal(200);
    await testDb().query(
      sql.typeAlias(
        'void',
      )`delete from memberships where workspace_id = ${workspaceId} and user_id = ${user.id}`,
    );
    expectProblem(await client.get(members(workspaceId)), 404);
  });

  it('ends an idle session on a workspace route, deleting its row', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const sid = sessionId(sessionCookieOf(client));
    const idle = server().context.config.SESSION_IDLE_TIMEOUT_MS;
    await testDb().query(sql.typeAlias('void')`
      update sessions set sess = jsonb_set(sess::jsonb, '{lastSeenAt}', to_jsonb(${Date.now() - idle - 60_000}::bigint))::json
      where sid = ${sid}
    `);
    expectProblem(await client.get(members(workspaceId)), 401);
    const left = await testDb().oneFirst(
      sql.type(z.object({ n: z.number() }))`select count(*)::int as n from sessions where sid = ${sid}`,
    );
    expect(left).to.equal(0);
  });

  it('refreshes lastSeenAt from a workspace route once it is a minute old', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const sid = sessionId(sessionCookieOf(client));
    await testDb().query(sql.typeAlias('void')`
      update sessions set sess = jsonb_set(sess::jsonb, '{lastSeenAt}', to_jsonb(${Date.now() - 120_000}::bigint))::json
      where sid = ${sid}
    `);
    expect((await client.get(members(workspaceId))).status).to.equal(200);
    const lastSeenAt = await testDb().oneFirst(sql.type(z.object({ at: z.number() }))`
      select (sess->>'lastSeenAt')::bigint as at from sessions where sid = ${sid}
    `);
    expect(lastSeenAt).to.be.greaterThan(Date.now() - 10_000);
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
