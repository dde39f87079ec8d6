import { expect } from 'chai';
import { z } from 'zod';
import { OWASP_MEMORY_KIB } from '../../src/config.ts';
import { Client } from '../support/client.ts';
import { expectDocumented } from '../support/documented.ts';
import { expectProblem, PASSWORD, signedInUser, uniqueEmail } from '../support/factories.ts';
import { ISO_MS, sessionCookieOf, signIn, sql, testDb } from '../support/helpers.ts';
import { server, startSecondWeb } from '../support/server.ts';

function register(body: unknown) {
  return new Client().post('/api/auth/register', body);
}

function errorPaths(body: { errors?: { path: string }[] }): string[] {
  return (body.errors ?? []).map((error) => error.path);
}

describe('accounts: registration', () => {
  it('creates a user and answers 201 with id, name, email and createdAt only', async () => {
    const email = uniqueEmail();
    const response = await register({ name: '  Ada Lovelace ', email, password: PASSWORD });
    expect(response.status, response.text).to.equal(201);
    expect(Object.keys(response.body).sort()).to.deep.equal(['createdAt', 'email', 'id', 'name']);
    expect(response.body.id).to.match(/^usr_[0-9A-Z]{26}$/);
    expect(response.body.name).to.equal('Ada Lovelace');
    expect(response.body.email).to.equal(email);
    expect(response.body.createdAt).to.match(ISO_MS);
    expect(response.text).not.to.contain(PASSWORD);
  });

  it('stores the email trimmed and lowercased', async () => {
    const email = uniqueEmail();
    const response = await register({ name: 'Ada', email: `  ${email.toUpperCase()} `, password: PASSWORD });
    expect(response.status, response.text).to.equal(201);
    expect(response.body.email).to.equal(email);
  });

  it('answers 409 when the email exists, whatever its case or surrounding spaces', async () => {
    const email = uniqueEmail();
    expect((await register({ name: 'First', email, password: PASSWORD })).status).to.equal(201);
    for (const variant of [email, email.toUpperCase(), ` ${email}\t`]) {
      const problem = expectProblem(
        await register({ name: 'Second', email: variant, password: PASSWORD }),
        409,
      );
      expect(problem.detail).to.match(/already exists/);
    }
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['a missing name', { email: 'x@example.com', password: PASSWORD }, 'body.name'],
    ['a blank name', { name: '   ', email: 'x@example.com', password: PASSWORD }, 'body.name'],
    [
      'a name over 100 characters',
      { name: 'n'.repeat(101), email: 'x@example.com', password: PASSWORD },
      'body.name',
    ],
    ['a name that is not a string', { name: 42, email: 'x@example.com', password: PASSWORD }, 'body.name'],
    ['a missing email', { name: 'Ada', password: PASSWORD }, 'body.email'],
    ['an invalid email', { name: 'Ada', email: 'not-an-email', password: PASSWORD }, 'body.email'],
    ['a missing password', { name: 'Ada', email: 'x@example.com' }, 'body.password'],
    [
      'a password under 8 characters',
      { name: 'Ada', email: 'x@example.com', password: 'short' },
      'body.password',
    ],
    [
      'a password over 128 characters',
      { name: 'Ada', email: 'x@example.com', password: 'p'.repeat(129) },
      'body.password',
    ],
    [
      'an unknown field',
      { name: 'Ada', email: 'x@example.com', password: PASSWORD, admin: true },
      'body.admin',
    ],
  ];
  for (const [label, body, path] of invalid) {
    it(`answers 400 naming the field for ${label}`, async () => {
      const problem = expectProblem(await register(body), 400);
      expect(errorPaths(problem as never)).to.include(path);
    });
  }

  it('names each unknown field in an error of its own', async () => {
    const response = await register({
      name: 'Ada',
      email: uniqueEmail(),
      password: PASSWORD,
      admin: true,
      role: 1,
    });
    expectProblem(response, 400);
    expect(response.body.errors).to.deep.equal([
      { path: 'body.admin', message: 'is not a known field' },
      { path: 'body.role', message: 'is not a known field' },
    ]);
  });

  it('answers 400 for a body that is not an object', async () => {
    expectProblem(await register(['Ada']), 400);
  });
});

describe('accounts: password hashing', () => {
  const storedHash = (email: string) =>
    testDb().oneFirst(
      sql.type(
        z.object({ password_hash: z.string() }),
      )`select password_hash from users where email = ${email}`,
    );
  const post = (base: string, path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it("hashes at PASSWORD_HASH_MEMORY_KIB (OWASP's 19 MiB when set so) and checks hashes of any setting", async () => {
    // The suite's server hashes cheaply (TEST_ENV); a second web on the same database has the real setting.
    expect(server().context.config.PASSWORD_HASH_MEMORY_KIB).to.be.below(OWASP_MEMORY_KIB);
    const real = await startSecondWeb({ PASSWORD_HASH_MEMORY_KIB: OWASP_MEMORY_KIB });
    try {
      const owasp = uniqueEmail();
      const registered = await post(real.url, '/api/auth/register', {
        name: 'Ada',
        email: owasp,
        password: PASSWORD,
      });
      expect(registered.status, await registered.clone().text()).to.equal(201);
      const hash = await storedHash(owasp);
      expect(hash).to.match(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[\w-]{22}\$[\w-]{43}$/);
      expect(hash).not.to.contain(PASSWORD);

      const cheap = uniqueEmail();
      expect((await register({ name: 'Bo', email: cheap, password: PASSWORD })).status).to.equal(201);
      const memory = server().context.config.PASSWORD_HASH_MEMORY_KIB;
      expect(await storedHash(cheap)).to.match(new RegExp(`^\\$argon2id\\$v=19\\$m=${memory},t=2,p=1\\$`));

      // Each hash keeps its parameters: either web checks either user, right and wrong passwords alike.
      for (const base of [real.url, server().baseUrl]) {
        for (const email of [owasp, cheap]) {
          expect((await post(base, '/api/auth/signin', { email, password: PASSWORD })).status).to.equal(200);
          const wrong = await post(base, '/api/auth/signin', { email, password: `${PASSWORD}!` });
          expect(wrong.status).to.equal(401);
        }
      }
    } finally {
      await real.stop();
    }
  });
});

describe('accounts: JSON sign-in, session and sign-out', () => {
  it('signs in with 200 {user} and an HttpOnly, SameSite=Lax session cookie', async () => {
    const { user } = await signedInUser();
    const client = new Client();
    const response = await client.post('/api/auth/signin', {
      email: user.email.toUpperCase(),
      password: PASSWORD,
    });
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.deep.equal({ user });
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith('sb.sid='));
    expect(cookie)
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Lax/i);
    expect(response.text).not.to.contain(PASSWORD);
  });

  it('answers the same 401 body for a wrong password and an unknown email', async () => {
    const { user } = await signedInUser();
    const wrongPassword = await new Client().post('/api/auth/signin', {
      email: user.email,
      password: 'wrong password',
    });
    const unknownEmail = await new Client().post('/api/auth/signin', {
      email: uniqueEmail(),
      password: PASSWORD,
    });
    const strip = ({ requestId: _, ...rest }: Record<string, unknown>) => rest;
    expect(strip(expectProblem(wrongPassword, 401))).to.deep.equal(strip(expectProblem(unknownEmail, 401)));
    expect(wrongPassword.headers.getSetCookie()).to.deep.equal([]);
  });

  it('answers 400 for a sign-in body without email or password', async () => {
    expectProblem(await new Client().post('/api/auth/signin', { email: 'a@example.com' }), 400);
    expectProblem(await new Client().post('/api/auth/signin', { password: PASSWORD }), 400);
  });

  it('answers GET /api/auth/session with the user and their workspaces, and 401 without a session', async () => {
    const { client, user } = await signedInUser();
    const created = await client.post('/api/workspaces', { name: 'Mine' });
    const response = await client.get('/api/auth/session');
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.deep.equal({
      user,
      workspaces: [{ id: created.body.id, name: 'Mine', role: 'ADMIN' }],
    });
    expectProblem(await new Client().get('/api/auth/session'), 401);
  });

  it('signs out with 204; the old cookie no longer authenticates', async () => {
    const { client } = await signedInUser();
    const cookie = sessionCookieOf(client);
    const response = await client.post('/api/auth/signout');
    expect(response.status, response.text).to.equal(204);
    expectProblem(await client.get('/api/auth/session'), 401);
    const replay = await new Client().get('/api/auth/session', { headers: { cookie: `sb.sid=${cookie}` } });
    expectProblem(replay, 401);
  });

  it('answers sign-out without a session with 204 too', async () => {
    expect((await new Client().post('/api/auth/signout')).status).to.equal(204);
  });

  it('regenerates the session id at sign-in, so a planted or earlier id is worthless', async () => {
    const { client, user } = await signedInUser();
    const before = sessionCookieOf(client);
    const again = await client.post('/api/auth/signin', { email: user.email, password: PASSWORD });
    expect(again.status).to.equal(200);
    const after = sessionCookieOf(client);
    expect(after).to.be.a('string').and.not.equal(before);
    expectProblem(
      await new Client().get('/api/auth/session', { headers: { cookie: `sb.sid=${before}` } }),
      401,
    );
    expect((await client.get('/api/auth/session')).status).to.equal(200);
  });

  it('ignores a session cookie that was not signed by the server', async () => {
    const { client, user } = await signedInUser();
    const forged = sessionCookieOf(client).replace(/\.[^.]+$/, '.forgedsignature');
    expectProblem(
      await new Client().get('/api/auth/session', { headers: { cookie: `sb.sid=${forged}` } }),
      401,
    );
    const { response } = await signIn(user.email);
    expect(response.status).to.equal(200);
  });
});

describe('accounts: sign-in rate limit per email', () => {
  it('answers 429 with Retry-After after 5 failures for one email, even for the right password', async () => {
    const { user } = await signedInUser();
    for (let i = 0; i < 5; i++) {
      expectProblem(
        await new Client().post('/api/auth/signin', { email: user.email, password: `wrong ${i}` }),
        401,
      );
    }
    const limited = await new Client().post('/api/auth/signin', { email: user.email, password: PASSWORD });
    expectProblem(limited, 429);
    await expectDocumented('post', '/api/auth/signin', limited);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter)
      .to.be.greaterThan(0)
      .and.at.most(15 * 60);
  });

  it('counts the email case-insensitively and leaves other emails alone', async () => {
    const { user } = await signedInUser();
    for (let i = 0; i < 5; i++) {
      await new Client().post('/api/auth/signin', {
        email: ` ${user.email.toUpperCase()}`,
        password: 'wrong',
      });
    }
    expectProblem(
      await new Client().post('/api/auth/signin', { email: user.email, password: PASSWORD }),
      429,
    );
    const other = await signedInUser();
    expect((await signIn(other.user.email)).response.status).to.equal(200);
  });
});
