// The registration page, the sign-in page for someone already signed in, and the favicon.
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { PASSWORD, signedInUser, uniqueEmail } from '../support/factories.ts';
import { postForm, sessionCookieOf } from '../support/helpers.ts';

async function openPage(client: Client, path: string) {
  const page = await client.get(path);
  expect(page.status).to.equal(200);
  expect(page.headers.get('content-type')).to.match(/^text\/html/);
  return { page, token: /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '' };
}

describe('registration page (HTML)', () => {
  it('renders a form with name, email, password and a CSRF token, linked from the sign-in page', async () => {
    const signin = await openPage(new Client(), '/auth/signin');
    expect(signin.page.text).to.contain('href="/auth/register"');
    const { page, token } = await openPage(new Client(), '/auth/register');
    expect(page.text).to.match(/<form method="post" action="\/auth\/register">/);
    expect(page.text)
      .to.match(/name="name"/)
      .and.match(/name="email"/)
      .and.match(/name="password" type="password"/);
    expect(page.text).to.contain('href="/auth/signin"');
    expect(token).to.have.length.greaterThan(20);
  });

  it('registers, signs the new user in and redirects home', async () => {
    const client = new Client();
    const { token } = await openPage(client, '/auth/register');
    const email = uniqueEmail('page');
    const response = await postForm(client, '/auth/register', {
      _csrf: token,
      name: 'Grace',
      email,
      password: PASSWORD,
    });
    expect(response.status, response.text).to.equal(303);
    expect(response.headers.get('location')).to.equal('/');
    const session = await client.get('/api/auth/session');
    expect(session.body.user).to.include({ name: 'Grace', email });
  });

  it('re-renders the form naming each invalid field (400), and says when the email is taken (409)', async () => {
    const client = new Client();
    const { token } = await openPage(client, '/auth/register');
    const invalid = await postForm(client, '/auth/register', {
      _csrf: token,
      name: ' ',
      email: 'nope',
      password: 'short',
    });
    expect(invalid.status).to.equal(400);
    expect(invalid.text).to.contain('name: is required').and.contain('email:').and.contain('password:');
    expect(invalid.text).to.contain('value="nope"');

    const { user } = await signedInUser();
    const taken = await postForm(client, '/auth/register', {
      _csrf: token,
      name: 'Again',
      email: user.email,
      password: PASSWORD,
    });
    expect(taken.status).to.equal(409);
    expect(taken.text).to.contain('already exists');
    expect(sessionCookieOf(client)).to.equal('');
  });

  it('refuses a post without a valid CSRF token (403) and creates nothing', async () => {
    const client = new Client();
    await openPage(client, '/auth/register');
    const email = uniqueEmail('csrf');
    const response = await postForm(client, '/auth/register', {
      _csrf: 'x'.repeat(32),
      name: 'X',
      email,
      password: PASSWORD,
    });
    expect(response.status).to.equal(403);
    const signin = await new Client().post('/api/auth/signin', { email, password: PASSWORD });
    expect(signin.status).to.equal(401);
  });
});

describe('account pages for a signed-in user', () => {
  for (const path of ['/auth/signin', '/auth/register']) {
    it(`${path} shows who is signed in with sign-out and links instead of the form`, async () => {
      const { client, user } = await signedInUser('Signed Person');
      const { page } = await openPage(client, path);
      expect(page.text).to.contain('Signed in as Signed Person').and.contain(user.email);
      expect(page.text)
        .to.contain('action="/auth/signout"')
        .and.contain('href="/docs"')
        .and.contain('href="/"');
      expect(page.text).not.to.match(/name="password"/);
    });
  }
});

describe('favicon', () => {
  it('serves an SVG icon at /favicon.ico that every page links to', async () => {
    const client = new Client();
    const icon = await client.get('/favicon.ico');
    expect(icon.status).to.equal(200);
    expect(icon.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(icon.text).to.match(/^<svg /);
    for (const path of ['/auth/signin', '/auth/register', '/docs']) {
      expect((await client.get(path)).text, path).to.contain('<link rel="icon" href="/favicon.ico"');
    }
  });
});
