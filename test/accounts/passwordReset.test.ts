// Password reset by email (SYSTEM_SMTP_URL pointed at a local SMTP sink): the round trip through
// the mail, links that no longer work, answers that tell nobody who is registered, the limits, and
// what happens without a mail server (the page says whom to ask; the CLI prints a link).
import { expect } from 'chai';
import { runCli } from '../support/cli.ts';
import { Client } from '../support/client.ts';
import { eventually, expectProblem, PASSWORD, signedInUser, uniqueEmail } from '../support/factories.ts';
import { postForm, signIn, sql, testDb } from '../support/helpers.ts';
import { server } from '../support/server.ts';
import { SYSTEM_FROM, useSystemMail } from './systemMailSink.ts';

const NEW_PASSWORD = 'a brand new passphrase';

/** The path and query of the link a reset mail carries (its origin is PUBLIC_URL's). */
function linkIn(text: string): string {
  const url = /https?:\/\/\S+\/auth\/reset\?token=[A-Za-z0-9_-]+/.exec(text)?.[0];
  expect(url, text).to.be.a('string');
  const parsed = new URL(url!);
  return parsed.pathname + parsed.search;
}

async function csrfOf(client: Client, path: string) {
  const page = await client.get(path);
  return { page, token: /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '' };
}

/** Opens the link's page and posts the form with this password. */
async function setPasswordThroughLink(link: string, password = NEW_PASSWORD) {
  const client = new Client();
  const { page, token } = await csrfOf(client, link);
  expect(page.status, page.text).to.equal(200);
  const tokenValue = new URL(link, 'http://x').searchParams.get('token') ?? '';
  return postForm(client, '/auth/reset', { _csrf: token, token: tokenValue, password });
}

/** Waits until the worker has run the `count` reset-mail jobs asked for this email. */
async function resetJobsDone(email: string, count: number) {
  return eventually(async () => {
    const completed = await testDb().oneFirst(sql.unsafe`
      select count(*) filter (where state = 'completed')::int from pgboss.job
      where name = 'accounts.passwordResetMail' and data ->> 'email' = ${email}
    `);
    return completed === count;
  });
}

describe('password reset by email', () => {
  const mail = useSystemMail();

  it('mails a link that sets a new password once, ending every session and the old password', async () => {
    const { client: session, user } = await signedInUser('Ada');
    const asked = await new Client().post('/api/auth/password-reset', { email: user.email.toUpperCase() });
    expect(asked.status, asked.text).to.equal(202);
    expect(asked.body).to.deep.equal({ byEmail: true });

    const message = await mail.nextMailTo(user.email);
    expect(message.from?.text).to.equal(SYSTEM_FROM.replace(/^Switchboard /, '"Switchboard" '));
    expect(message.subject).to.equal('Reset your Switchboard password');
    expect(message.text).to.contain('Hello Ada,').and.contain('works once, within 60 minutes');
    const link = linkIn(message.text ?? '');
    expect(message.html).to.contain(`href="http://localhost:${server().context.config.PORT}${link}"`);

    const done = await setPasswordThroughLink(link);
    expect(done.status, done.text).to.equal(303);
    expect(done.headers.get('location')).to.equal(
      `/auth/signin?reset=done&email=${encodeURIComponent(user.email)}`,
    );
    const signinPage = await new Client().get(done.headers.get('location')!);
    expect(signinPage.text).to.contain('Your new password is set').and.contain(`value="${user.email}"`);

    expectProblem(await session.get('/api/auth/session'), 401);
    expectProblem((await signIn(user.email, PASSWORD)).response, 401);
    expect((await signIn(user.email, NEW_PASSWORD)).response.status).to.equal(200);
  });

  it('refuses a link used once already, on the page and through the API, and changes nothing', async () => {
    const { user } = await signedInUser();
    await new Client().post('/api/auth/password-reset', { email: user.email });
    const link = linkIn((await mail.nextMailTo(user.email)).text ?? '');
    expect((await setPasswordThroughLink(link)).status).to.equal(303);

    const again = await new Client().get(link);
    expect(again.status).to.equal(400);
    expect(again.text).to.contain('has expired or was already used').and.contain('href="/auth/forgot"');
    expect(again.headers.get('referrer-policy')).to.equal('no-referrer');
    const token = new URL(link, 'http://x').searchParams.get('token');
    const reused = await new Client().post('/api/auth/password-reset/complete', {
      token,
      password: 'another one!',
    });
    const problem = expectProblem(reused, 400) as unknown as { errors: { path: string }[] };
    expect(problem.errors.map((error) => error.path)).to.deep.equal(['body.token']);
    expect((await signIn(user.email, NEW_PASSWORD)).response.status).to.equal(200);
  });

  it('refuses an expired link', async () => {
    const { user } = await signedInUser();
    await new Client().post('/api/auth/password-reset', { email: user.email });
    const link = linkIn((await mail.nextMailTo(user.email)).text ?? '');
    await testDb().query(sql.unsafe`
      update password_resets set expires_at = now() - interval '1 second'
      where user_id = ${user.id}
    `);
    expect((await new Client().get(link)).status).to.equal(400);
    const token = new URL(link, 'http://x').searchParams.get('token');
    expectProblem(
      await new Client().post('/api/auth/password-reset/complete', { token, password: NEW_PASSWORD }),
      400,
    );
    expect((await signIn(user.email, PASSWORD)).response.status).to.equal(200);
  });

  it('answers an email without an account exactly as one with, and mails it nothing', async () => {
    const { user } = await signedInUser();
    const nobody = uniqueEmail('nobody');
    const forUnknown = await new Client().post('/api/auth/password-reset', { email: nobody });
    const forKnown = await new Client().post('/api/auth/password-reset', { email: user.email });
    expect([forUnknown.status, forUnknown.text]).to.deep.equal([forKnown.status, forKnown.text]);

    // The pages too: the same words, but for the address typed.
    const pages = [];
    for (const email of [nobody, user.email]) {
      const client = new Client();
      const { token } = await csrfOf(client, '/auth/forgot');
      const sent = await postForm(client, '/auth/forgot', { _csrf: token, email });
      expect(sent.status).to.equal(200);
      pages.push(sent.text.replace(email, 'EMAIL'));
    }
    expect(pages[0]).to.equal(pages[1]).and.contain('Check your mail');

    await resetJobsDone(nobody, 2);
    await mail.nextMailTo(user.email, 2);
    expect(await mail.mailsTo(nobody)).to.have.length(0);
  });

  it('ends unused links when the password is changed, and stores only their hashes', async () => {
    const { client, user } = await signedInUser();
    await new Client().post('/api/auth/password-reset', { email: user.email });
    const link = linkIn((await mail.nextMailTo(user.email)).text ?? '');
    const token = new URL(link, 'http://x').searchParams.get('token') ?? '';
    const stored = await testDb().anyFirst(
      sql.unsafe`select token_hash from password_resets where user_id = ${user.id}`,
    );
    expect(stored).to.have.length(1).and.not.include(token);
    const changed = await client.post('/api/auth/password', {
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(changed.status).to.equal(204);
    expect((await new Client().get(link)).status).to.equal(400);
  });

  it('keeps the link when the new password breaks the rules, and clears a sign-in lock-out once used', async function () {
    this.timeout(20_000);
    const { user } = await signedInUser();
    const limit = server().context.config.SIGNIN_MAX_FAILURES_PER_EMAIL;
    for (let attempt = 0; attempt < limit; attempt++) await signIn(user.email, 'wrong password');
    expectProblem((await signIn(user.email, PASSWORD)).response, 429);

    await new Client().post('/api/auth/password-reset', { email: user.email });
    const link = linkIn((await mail.nextMailTo(user.email)).text ?? '');
    const short = await setPasswordThroughLink(link, 'short');
    expect(short.status).to.equal(400);
    expect(short.text).to.contain('New password: must be at least 8 characters');
    expect((await setPasswordThroughLink(link)).status).to.equal(303);
    expect((await signIn(user.email, NEW_PASSWORD)).response.status).to.equal(200);
  });

  it('limits requests per email like sign-in (429 with Retry-After), accounts or not', async function () {
    this.timeout(20_000);
    const limit = server().context.config.SIGNIN_MAX_FAILURES_PER_EMAIL;
    for (const email of [(await signedInUser()).user.email, uniqueEmail('unknown')]) {
      for (let attempt = 0; attempt < limit; attempt++)
        expect((await new Client().post('/api/auth/password-reset', { email })).status).to.equal(202);
      const limited = await new Client().post('/api/auth/password-reset', { email });
      expectProblem(limited, 429);
      expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    }
  });

  it('refuses a form without its CSRF token (403) and an invalid email (400)', async () => {
    const client = new Client();
    await csrfOf(client, '/auth/forgot');
    const forged = await postForm(client, '/auth/forgot', { _csrf: 'x'.repeat(32), email: 'a@example.com' });
    expect(forged.status).to.equal(403);
    const { token } = await csrfOf(client, '/auth/forgot');
    const invalid = await postForm(client, '/auth/forgot', { _csrf: token, email: '"><script>x</script>' });
    expect(invalid.status).to.equal(400);
    expect(invalid.text).to.not.contain('<script>x');
    expect(invalid.text).to.contain('&#34;&#62;&#60;script&#62;');
    expectProblem(await new Client().post('/api/auth/password-reset', { email: 'not an email' }), 400);
  });

  it('links "forgot your password" from the sign-in page', async () => {
    const page = await new Client().get('/auth/signin');
    expect(page.text).to.contain('href="/auth/forgot"');
  });
});

describe('password reset without a mail server', () => {
  it('says so: the API answers byEmail false, the page says to ask an operator', async () => {
    const { user } = await signedInUser();
    const asked = await new Client().post('/api/auth/password-reset', { email: user.email });
    expect(asked.status).to.equal(202);
    expect(asked.body).to.deep.equal({ byEmail: false });
    const page = await new Client().get('/auth/forgot');
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('This server sends no mail').and.contain('switchboard admin reset-link');
    expect(page.text).to.not.contain('<form method="post" action="/auth/forgot"');
  });

  it('`switchboard admin reset-link` prints a link that sets the password once', async function () {
    this.timeout(30_000);
    const { client: session, user } = await signedInUser();
    const env = { PUBLIC_URL: server().baseUrl };
    const printed = await runCli(['admin', 'reset-link', user.email.toUpperCase()], { env });
    expect(printed.code, printed.stderr).to.equal(0);
    expect(printed.stdout).to.contain(`Password reset link for ${user.email} (works once`);
    expect(printed.stdout).to.contain(`${server().baseUrl}/auth/reset?token=`);
    const link = linkIn(printed.stdout);
    expect((await setPasswordThroughLink(link)).status).to.equal(303);
    expectProblem(await session.get('/api/auth/session'), 401);
    expect((await signIn(user.email, NEW_PASSWORD)).response.status).to.equal(200);
    expect((await new Client().get(link)).status).to.equal(400);

    const unknown = await runCli(['admin', 'reset-link', uniqueEmail('nobody')]);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.contain('No account has the email');
  });
});
