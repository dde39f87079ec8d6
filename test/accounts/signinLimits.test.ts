// Sign-in and registration limits under concurrency: bursts check at most the limit's worth of
// passwords, an owner is not locked out by someone guessing from elsewhere, registrations are
// limited per address, and argon2 work is bounded. Addresses other than 127.0.0.1 come from a
// second web process that trusts X-Forwarded-For.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { findLockedSubjects } from '../../src/accounts/attemptQueries.ts';
import { limitPasswordHashing } from '../../src/accounts/hashingQueue.ts';
import { OWASP_MEMORY_KIB } from '../../src/config.ts';
import { sql } from '../../src/db/pool.ts';
import { runCli } from '../support/cli.ts';
import { Client, readResponse } from '../support/client.ts';
import { expectDocumented } from '../support/documented.ts';
import { expectProblem, PASSWORD, signedInUser, uniqueEmail } from '../support/factories.ts';
import { postForm } from '../support/helpers.ts';
import { type SecondWeb, server, startSecondWeb } from '../support/server.ts';

const LOCKOUT_ENDS = /Try again in \d+ minutes?, at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/;

function anAddress(): string {
  const [a, b, c] = randomBytes(3);
  return `10.${a}.${b}.${c}`;
}

async function post(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return readResponse(response);
}

function statusCounts(responses: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/**
 * Bursts and the hashing queue are about argon2's cost: these tests hash at the real setting on a
 * second web (the suite's server hashes cheaply, TEST_ENV). A hash is checked at the cost it was
 * made with, so a user registered there costs the real derivation on every web.
 */
const REAL_HASHING = { PASSWORD_HASH_MEMORY_KIB: OWASP_MEMORY_KIB };

async function userWithRealHash(web: SecondWeb): Promise<{ email: string }> {
  const email = uniqueEmail();
  const response = await post(web.url, '/api/auth/register', { name: 'Real', email, password: PASSWORD });
  expect(response.status, response.text).to.equal(201);
  return { email };
}

describe('sign-in limits under concurrent requests', () => {
  let web: SecondWeb;
  before(async () => {
    web = await startSecondWeb(REAL_HASHING);
  });
  after(async () => {
    await web?.stop();
  });

  it('lets a burst of 300 for one email (the right password last) check at most the limit', async () => {
    const user = await userWithRealHash(web);
    const limit = server().context.config.SIGNIN_MAX_FAILURES_PER_EMAIL;
    const attempts = Array.from({ length: 300 }, (_, i) =>
      post(server().baseUrl, '/api/auth/signin', {
        email: user.email,
        password: i === 299 ? PASSWORD : `wrong ${i}`,
      }),
    );
    const responses = await Promise.all(attempts);
    const counts = statusCounts(responses);
    expect(counts[200] ?? 0, JSON.stringify(counts)).to.equal(0);
    // Every 401 is a password that was checked; the rest were refused before any argon2 work.
    expect(counts[401] ?? 0, JSON.stringify(counts)).to.be.at.most(limit);
    expect((counts[401] ?? 0) + (counts[429] ?? 0), JSON.stringify(counts)).to.equal(300);
    const limited = responses.find((response) => response.status === 429)!;
    expect(limited.body.detail).to.match(LOCKOUT_ENDS);
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 15 * 60);
  });

  it('holds the same limit for a burst on the HTML form', async () => {
    const user = await userWithRealHash(web);
    const client = new Client();
    const page = await client.get('/auth/signin');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        postForm(client, '/auth/signin', { _csrf: token, email: user.email, password: `wrong ${i}` }),
      ),
    );
    const counts = statusCounts(responses);
    expect(counts[401] ?? 0, JSON.stringify(counts)).to.be.at.most(
      server().context.config.SIGNIN_MAX_FAILURES_PER_EMAIL,
    );
    expect((counts[401] ?? 0) + (counts[429] ?? 0), JSON.stringify(counts)).to.equal(60);
    const limited = responses.find((response) => response.status === 429)!;
    expect(limited.text).to.match(LOCKOUT_ENDS);
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
  });
});

describe('sign-in limits per address and per email', () => {
  let web: SecondWeb;
  before(async () => {
    web = await startSecondWeb({
      ...REAL_HASHING,
      trustProxy: true,
      SIGNIN_MAX_FAILURES_PER_EMAIL: 5,
      SIGNIN_MAX_FAILURES_PER_IP: 20,
      SIGNIN_MAX_FAILURES_PER_EMAIL_ALL_IPS: 8,
    });
  });
  after(async () => {
    await web?.stop();
  });

  function signinFrom(ip: string, email: string, password: string) {
    return post(web.url, '/api/auth/signin', { email, password }, { 'x-forwarded-for': ip });
  }

  it('lets a burst from one address over many emails check at most the per-address limit', async () => {
    const ip = anAddress();
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => signinFrom(ip, uniqueEmail(), 'wrong password')),
    );
    const counts = statusCounts(responses);
    expect(counts[401] ?? 0, JSON.stringify(counts)).to.be.at.most(20);
    expect(counts[429], JSON.stringify(counts)).to.be.at.least(80);
    expect(responses.find((response) => response.status === 429)!.body.detail).to.match(/from your address/);
  });

  it('still signs the owner in from their own address while a guesser is locked out', async () => {
    const { user } = await signedInUser();
    const guesser = anAddress();
    for (let i = 0; i < 5; i++)
      expect((await signinFrom(guesser, user.email, `wrong ${i}`)).status).to.equal(401);
    const locked = await signinFrom(guesser, user.email, PASSWORD);
    expectProblem(locked as never, 429);
    expect(locked.body.detail)
      .to.match(/for this email from your address/)
      .and.match(LOCKOUT_ENDS);

    const owner = await signinFrom(anAddress(), user.email, PASSWORD);
    expect(owner.status, owner.text).to.equal(200);
    // The owner's success clears only their own counters: the guesser stays locked out.
    expect((await signinFrom(guesser, user.email, PASSWORD)).status).to.equal(429);
  });

  it('bounds guesses at one email from many addresses, and `signin unlock` lifts the lock-out', async () => {
    const { user } = await signedInUser();
    for (let i = 0; i < 4; i++) {
      const ip = anAddress();
      await Promise.all([signinFrom(ip, user.email, 'wrong a'), signinFrom(ip, user.email, 'wrong b')]);
    }
    const locked = await signinFrom(anAddress(), user.email, PASSWORD);
    expect(locked.status).to.equal(429);
    expect(locked.body.detail).to.match(/for this email\. Try again/);

    const unlocked = await runCli(['signin', 'unlock', '--email', user.email.toUpperCase(), '--json']);
    expect(unlocked.code, unlocked.stderr).to.equal(0);
    expect(JSON.parse(unlocked.stdout)).to.include({ email: user.email, cleared: 8 });
    expect((await signinFrom(anAddress(), user.email, PASSWORD)).status).to.equal(200);
  });

  it('`signin unlock` needs an email or an address, and refuses an address that is not one', async () => {
    const nothing = await runCli(['signin', 'unlock']);
    expect(nothing.code).to.equal(1);
    expect(nothing.stderr).to.match(/--email/);
    const badIp = await runCli(['signin', 'unlock', '--ip', 'not-an-address']);
    expect(badIp.code).to.equal(1);
    expect(badIp.stderr).to.match(/ip/);
  });
});

describe('registration limit per address', () => {
  let web: SecondWeb;
  before(async () => {
    web = await startSecondWeb({ trustProxy: true, REGISTRATION_MAX_PER_IP: 3 });
  });
  after(async () => {
    await web?.stop();
  });

  it('accepts the limit of concurrent registrations from one address and answers 429 to the rest', async () => {
    const ip = anAddress();
    const responses = await Promise.all(
      Array.from({ length: 12 }, () =>
        post(
          web.url,
          '/api/auth/register',
          { name: 'Flood', email: uniqueEmail(), password: PASSWORD },
          {
            'x-forwarded-for': ip,
          },
        ),
      ),
    );
    expect(statusCounts(responses)).to.deep.equal({ 201: 3, 429: 9 });
    const limited = responses.find((response) => response.status === 429)!;
    expect(limited.body.detail)
      .to.match(/Too many registrations from your address/)
      .and.match(LOCKOUT_ENDS);
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 3600);
    await expectDocumented('post', '/api/auth/register', limited as never);

    const elsewhere = await post(
      web.url,
      '/api/auth/register',
      { name: 'Other', email: uniqueEmail(), password: PASSWORD },
      { 'x-forwarded-for': anAddress() },
    );
    expect(elsewhere.status).to.equal(201);
  });

  it('never asks to wait longer than the window, even behind an attempt stamped after its own start', async () => {
    // A concurrent registration that began after this one committed its attempt first: its time
    // lies ahead of this transaction's now(), as two seconds ahead does here.
    const db = server().context.db;
    const subject = `register-ip:${anAddress()}`;
    await db.query(sql.unsafe`
      insert into auth_attempts (subject, attempt_id, attempted_at)
      values (${subject}, gen_random_uuid(), now() + interval '2 seconds')`);
    const [locked] = await findLockedSubjects(db, [{ subject, limit: 1 }], 60);
    expect(locked.retry_after_seconds).to.equal(3600);
  });
});

describe('password hashing is bounded', () => {
  let web: SecondWeb;
  before(async () => {
    web = await startSecondWeb(REAL_HASHING);
  });
  after(async () => {
    await web?.stop();
  });
  afterEach(() => {
    const { PASSWORD_HASH_CONCURRENCY, PASSWORD_HASH_QUEUE } = server().context.config;
    limitPasswordHashing({ concurrency: PASSWORD_HASH_CONCURRENCY, queue: PASSWORD_HASH_QUEUE });
  });

  it('answers 503 with Retry-After past the queue, and still signs people in during a registration flood', async () => {
    const user = await userWithRealHash(web);
    limitPasswordHashing({ concurrency: 1, queue: 3 });
    const flood = Array.from({ length: 30 }, () =>
      post(web.url, '/api/auth/register', { name: 'Flood', email: uniqueEmail(), password: PASSWORD }),
    );
    const signin = post(web.url, '/api/auth/signin', { email: user.email, password: PASSWORD });
    const [signedIn, ...registrations] = await Promise.all([signin, ...flood]);
    expect(signedIn.status, signedIn.text).to.equal(200);
    const counts = statusCounts(registrations);
    expect(Object.keys(counts).sort(), JSON.stringify(counts)).to.deep.equal(['201', '503']);
    const busy = registrations.find((response) => response.status === 503)!;
    expect(busy.headers.get('retry-after')).to.equal('1');
    await expectDocumented('post', '/api/auth/register', busy);
  });
});

describe('cross-site check on session routes', () => {
  for (const path of [
    '/api/auth/signout?key=x',
    '/api/AUTH/signout?key=sb_anything',
    '/api/auth/signin?key=x',
  ]) {
    it(`refuses a cross-site POST ${path} (a key in the query does not exempt a session route)`, async () => {
      const { client } = await signedInUser();
      const crossSite: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of crossSite) {
        const response = await client.request('POST', path, { headers });
        expectProblem(response, 403);
        expect(response.body.detail).to.match(/Cross-site/);
      }
      expect((await client.get('/api/auth/session')).status, 'still signed in').to.equal(200);
    });
  }
});
