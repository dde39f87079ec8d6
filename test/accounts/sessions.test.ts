import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { authenticateUser } from '../../src/accounts/service.ts';
import { RateLimitedError, UnauthorizedError } from '../../src/core/errors.ts';
import { expectProblem, PASSWORD, signedInUser, uniqueEmail } from '../support/factories.ts';
import { sessionCookieOf, sql, testDb } from '../support/helpers.ts';
import { server } from '../support/server.ts';

/** The store's id for the session a client holds (the cookie is `s:<sid>.<signature>`). */
function sessionId(cookie: string): string {
  const decoded = decodeURIComponent(cookie);
  return decoded.slice(2, decoded.lastIndexOf('.'));
}

async function setSessionField(cookie: string, field: 'lastSeenAt' | 'createdAt', epochMs: number) {
  const updated = await testDb().query(sql.typeAlias('void')`
    update sessions set sess = jsonb_set(sess::jsonb, ${sql.array([field], 'text')}, to_jsonb(${epochMs}::bigint))::json
    where sid = ${sessionId(cookie)}
  `);
  expect(updated.rowCount).to.equal(1);
}

describe('sessions: idle and absolute lifetime', () => {
  it('ends a session idle for longer than SESSION_IDLE_TIMEOUT_MS', async () => {
    const { client } = await signedInUser();
    const idle = server().context.config.SESSION_IDLE_TIMEOUT_MS;
    await setSessionField(sessionCookieOf(client), 'lastSeenAt', Date.now() - idle - 60_000);
    expectProblem(await client.get('/api/auth/session'), 401);
    expectProblem(await client.get('/api/workspaces'), 401);
  });

  it('keeps a session that was active within the idle timeout', async () => {
    const { client } = await signedInUser();
    const idle = server().context.config.SESSION_IDLE_TIMEOUT_MS;
    await setSessionField(sessionCookieOf(client), 'lastSeenAt', Date.now() - idle + 60_000);
    expect((await client.get('/api/auth/session')).status).to.equal(200);
  });

  it('refreshes lastSeenAt on use, so an active session does not go idle', async () => {
    const { client } = await signedInUser();
    const idle = server().context.config.SESSION_IDLE_TIMEOUT_MS;
    await setSessionField(sessionCookieOf(client), 'lastSeenAt', Date.now() - idle + 30_000);
    expect((await client.get('/api/auth/session')).status).to.equal(200);
    const lastSeenAt = await testDb().oneFirst(sql.type(z.object({ last_seen_at: z.number() }))`
      select (sess->>'lastSeenAt')::bigint as last_seen_at from sessions where sid = ${sessionId(sessionCookieOf(client))}
    `);
    expect(lastSeenAt).to.be.greaterThan(Date.now() - 10_000);
  });

  it('ends a session older than SESSION_ABSOLUTE_TIMEOUT_MS even when active', async () => {
    const { client } = await signedInUser();
    const absolute = server().context.config.SESSION_ABSOLUTE_TIMEOUT_MS;
    await setSessionField(sessionCookieOf(client), 'createdAt', Date.now() - absolute - 60_000);
    expectProblem(await client.get('/api/auth/session'), 401);
  });
});

describe('sign-in rate limit per IP (service level, with a lower limit)', () => {
  function attempt(limit: number, ip: string, email: string, password = 'wrong password') {
    const config = { ...server().context.config, SIGNIN_MAX_FAILURES_PER_IP: limit };
    return authenticateUser(testDb(), config, { email, password, ip }, server().context.effects.accounts);
  }

  it('refuses every email from an IP after its failures reach the limit', async () => {
    const ip = `198.51.100.${randomBytes(1)[0]}-${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < 3; i++) {
      const error = await attempt(3, ip, uniqueEmail()).catch((caught) => caught);
      expect(error).to.be.instanceOf(UnauthorizedError);
    }
    const { user } = await signedInUser();
    const error = await attempt(3, ip, user.email, PASSWORD).catch((caught) => caught);
    expect(error).to.be.instanceOf(RateLimitedError);
    expect(Number(error.headers['Retry-After'])).to.be.greaterThan(0);
  });

  it('does not count failures from another IP', async () => {
    const ip = `203.0.113.${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < 3; i++) await attempt(3, ip, uniqueEmail()).catch(() => {});
    const { user } = await signedInUser();
    const signedIn = await attempt(3, `${ip}-other`, user.email, PASSWORD);
    expect(signedIn.email).to.equal(user.email);
  });
});
