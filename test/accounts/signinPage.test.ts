import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { PASSWORD, signedInUser } from '../support/factories.ts';
import { postForm, sessionCookieOf } from '../support/helpers.ts';

/** Loads the sign-in page and returns its CSRF token (the client keeps the matching cookie). */
async function openSigninPage(client: Client, query = '') {
  const page = await client.get(`/auth/signin${query}`);
  expect(page.status).to.equal(200);
  expect(page.headers.get('content-type')).to.match(/^text\/html/);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  expect(token, 'the form carries a CSRF token').to.be.a('string');
  return { page, token: token as string };
}

describe('sign-in page (HTML)', () => {
  it('renders a form with email and password fields and sets the CSRF cookie', async () => {
    const client = new Client();
    const { page } = await openSigninPage(client);
    expect(page.text).to.match(/<form method="post" action="\/auth\/signin">/);
    expect(page.text)
      .to.match(/name="email"/)
      .and.match(/name="password" type="password"/);
    const cookie = page.headers.getSetCookie().find((value) => value.startsWith('sb.csrf='));
    expect(cookie)
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Strict/i);
  });

  it('signs in with a valid token: 303 to the home page and a session cookie', async () => {
    const { user } = await signedInUser('Page User');
    const client = new Client();
    const { token } = await openSigninPage(client);
    const response = await postForm(client, '/auth/signin', {
      _csrf: token,
      email: user.email,
      password: PASSWORD,
    });
    expect(response.status, response.text).to.equal(303);
    expect(response.headers.get('location')).to.equal('/');
    expect(sessionCookieOf(client)).not.to.equal('');
    expect((await client.get('/api/auth/session')).body.user.id).to.equal(user.id);
    const home = await client.get('/');
    expect(home.status).to.equal(303);
    expect(home.headers.get('location')).to.equal('/app');
  });

  it('redirects to a local `next` page but never off-site', async () => {
    const { user } = await signedInUser();
    for (const [next, expected] of [
      ['/docs', '/docs'],
      ['//evil.example', '/'],
      ['https://evil.example/', '/'],
    ]) {
      const client = new Client();
      const { token } = await openSigninPage(client, `?next=${encodeURIComponent(next)}`);
      const fields = { _csrf: token, next, email: user.email, password: PASSWORD };
      const response = await postForm(client, '/auth/signin', fields);
      expect(response.headers.get('location'), next).to.equal(expected);
    }
  });

  it('re-renders the form with a generic error for a wrong password or an unknown email', async () => {
    const { user } = await signedInUser();
    const bodies: string[] = [];
    for (const email of [user.email, `nobody.${Date.now()}@example.com`]) {
      const client = new Client();
      const { token } = await openSigninPage(client);
      const response = await postForm(client, '/auth/signin', {
        _csrf: token,
        email,
        password: 'wrong password',
      });
      expect(response.status).to.equal(401);
      expect(response.text).to.contain('Incorrect email or password.').and.contain('<form');
      expect(sessionCookieOf(client)).to.equal('');
      bodies.push(response.text.replace(/value="[^"]*"/g, ''));
    }
    expect(bodies[0]).to.equal(bodies[1]);
  });

  it('treats an email with a NUL character as unknown (401, not 500)', async () => {
    const client = new Client();
    const { token } = await openSigninPage(client);
    const response = await postForm(client, '/auth/signin', {
      _csrf: token,
      email: 'a\u0000@example.com',
      password: 'x',
    });
    expect(response.status).to.equal(401);
    expect(response.text).to.contain('Incorrect email or password.');
  });

  it('escapes what the user typed when it re-renders the form', async () => {
    const client = new Client();
    const { token } = await openSigninPage(client);
    const email = '"><script>alert(1)</script>';
    const response = await postForm(client, '/auth/signin', { _csrf: token, email, password: 'whatever1' });
    expect(response.text).not.to.contain('<script>alert(1)</script>');
    expect(response.text).to.contain('&#34;&#62;&#60;script&#62;');
  });

  it('refuses a post without the CSRF token, with a wrong token, or without the cookie (403)', async () => {
    const { user } = await signedInUser();
    const credentials = { email: user.email, password: PASSWORD };

    const noToken = new Client();
    await openSigninPage(noToken);
    const missing = await postForm(noToken, '/auth/signin', credentials);

    const wrongToken = new Client();
    const { token } = await openSigninPage(wrongToken);
    const wrong = await postForm(wrongToken, '/auth/signin', {
      ...credentials,
      _csrf: `${token.slice(0, -2)}${token.endsWith('xx') ? 'yy' : 'xx'}`, // always another token
    });

    // A token copied from someone else's page is useless without the matching cookie.
    const noCookie = await postForm(new Client(), '/auth/signin', { ...credentials, _csrf: token });

    for (const response of [missing, wrong, noCookie]) {
      expect(response.status).to.equal(403);
      expect(response.text).to.contain('Your form expired');
      expect(response.headers.getSetCookie().some((value) => value.startsWith('sb.sid='))).to.equal(false);
    }
  });

  it('refuses a cross-site form post even with a valid token (403)', async () => {
    const { user } = await signedInUser();
    const client = new Client();
    const { token } = await openSigninPage(client);
    const response = await client.request('POST', '/auth/signin', {
      body: new URLSearchParams({ _csrf: token, email: user.email, password: PASSWORD }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
    });
    expect(response.status).to.equal(403);
  });

  it('signs out through the form of the console', async () => {
    const { client } = await signedInUser();
    const home = await client.get('/app/new');
    const token = /name="_csrf" value="([^"]+)"/.exec(home.text)?.[1] as string;
    const response = await postForm(client, '/auth/signout', { _csrf: token });
    expect(response.status).to.equal(303);
    expect((await client.get('/api/auth/session')).status).to.equal(401);
    expect((await client.get('/')).headers.get('location')).to.equal('/auth/signin');
  });

  it('serves the API reference at /docs from local assets', async () => {
    const client = new Client();
    const docs = await client.get('/docs');
    expect(docs.status).to.equal(200);
    expect(docs.text)
      .to.contain('/docs/assets/swagger-ui-bundle.js')
      .and.not.match(/https?:\/\//);
    const bundle = await client.get('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).to.equal(200);
    expect(bundle.headers.get('content-type')).to.match(/javascript/);
  });
});
