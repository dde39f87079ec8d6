// A signed-in user's name and email, through PATCH /api/auth/profile and the /auth/account page
// (which also changes the password, through the same service as POST /api/auth/password).
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import {
  expectProblem,
  PASSWORD,
  signedInUser,
  uniqueEmail,
  workspaceWithAdmin,
} from '../support/factories.ts';
import { postForm, signIn } from '../support/helpers.ts';

const NEW_PASSWORD = 'another good passphrase';

async function accountPage(client: Client) {
  const page = await client.get('/auth/account');
  expect(page.status, page.text).to.equal(200);
  return { page, token: /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '' };
}

describe('profile (API)', () => {
  it('renames without a password; a new email needs the current one', async () => {
    const { client, user } = await signedInUser('Old Name');
    const renamed = await client.patch('/api/auth/profile', { name: '  New Name ' });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.body).to.include({ name: 'New Name', email: user.email, id: user.id });

    const email = uniqueEmail('moved');
    const without = expectProblem(await client.patch('/api/auth/profile', { email }), 400) as unknown as {
      errors: { path: string }[];
    };
    expect(without.errors.map((error) => error.path)).to.deep.equal(['body.currentPassword']);
    expectProblem(await client.patch('/api/auth/profile', { email, currentPassword: 'wrong one' }), 400);
    const moved = await client.patch('/api/auth/profile', {
      email: email.toUpperCase(),
      currentPassword: PASSWORD,
    });
    expect(moved.status, moved.text).to.equal(200);
    expect(moved.body.email).to.equal(email);
    expect((await client.get('/api/auth/session')).body.user.email).to.equal(email);
    expectProblem((await signIn(user.email)).response, 401);
    expect((await signIn(email)).response.status).to.equal(200);
  });

  it('refuses an email another account has (409), invalid input (400), no session (401), a key (403)', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { user: other } = await signedInUser();
    expectProblem(
      await client.patch('/api/auth/profile', { email: other.email, currentPassword: PASSWORD }),
      409,
    );
    for (const body of [{ name: ' ' }, { email: 'nope' }, { unknown: 1 }])
      expectProblem(await client.patch('/api/auth/profile', body), 400);
    expectProblem(await new Client().patch('/api/auth/profile', { name: 'X' }), 401);
    const key = await client.post(`/api/workspaces/${workspaceId}/keys`, {
      name: 'k',
      scopes: ['contacts:read'],
    });
    expectProblem(await new Client(key.body.key).patch('/api/auth/profile', { name: 'X' }), 403);
  });

  it('takes up invitations waiting for the new email', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const { client } = await signedInUser();
    const email = uniqueEmail('invited');
    await admin.post(`/api/workspaces/${workspaceId}/members`, { email, role: 'MEMBER' });
    expect((await client.get(`/api/workspaces/${workspaceId}`)).status).to.equal(404);
    await client.patch('/api/auth/profile', { email, currentPassword: PASSWORD });
    expect((await client.get(`/api/workspaces/${workspaceId}`)).body.role).to.equal('MEMBER');
  });
});

describe('account page (HTML)', () => {
  it('sends a visitor without a session to sign in and back', async () => {
    const page = await new Client().get('/auth/account');
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/auth/signin?next=%2Fauth%2Faccount');
    const posted = await postForm(new Client(), '/auth/account/profile', { name: 'X' });
    expect(posted.status).to.equal(303);
  });

  it('shows the name and email escaped, and saves a new name through the form', async () => {
    const { client } = await signedInUser('"><img src=x onerror=alert(1)>');
    const { page, token } = await accountPage(client);
    expect(page.text).to.not.contain('<img src=x');
    expect(page.text).to.contain('&#34;&#62;&#60;img src=x onerror=alert(1)&#62;');
    const current = (await client.get('/api/auth/session')).body.user;
    const saved = await postForm(client, '/auth/account/profile', {
      _csrf: token,
      name: 'Grace',
      email: current.email,
    });
    expect(saved.status, saved.text).to.equal(303);
    expect(saved.headers.get('location')).to.equal('/auth/account?saved=profile');
    expect((await client.get('/auth/account?saved=profile')).text).to.contain('Your profile is saved.');
    expect((await client.get('/api/auth/session')).body.user.name).to.equal('Grace');
  });

  it('re-renders the form with what is wrong: an empty name, an email change without the password', async () => {
    const { client, user } = await signedInUser('Kept');
    const { token } = await accountPage(client);
    const empty = await postForm(client, '/auth/account/profile', {
      _csrf: token,
      name: ' ',
      email: user.email,
    });
    expect(empty.status).to.equal(400);
    expect(empty.text).to.contain('name: is required');
    const moved = await postForm(client, '/auth/account/profile', {
      _csrf: token,
      name: 'Kept',
      email: uniqueEmail(),
    });
    expect(moved.status).to.equal(400);
    expect(moved.text).to.contain('give your current password');
    expect((await client.get('/api/auth/session')).body.user.email).to.equal(user.email);
  });

  it('changes the password, ending the other sessions, and refuses a wrong current one', async () => {
    const { client, user } = await signedInUser();
    const { client: other } = await signIn(user.email);
    const { token } = await accountPage(client);
    const wrong = await postForm(client, '/auth/account/password', {
      _csrf: token,
      currentPassword: 'not it',
      newPassword: NEW_PASSWORD,
    });
    expect(wrong.status).to.equal(400);
    expect(wrong.text).to.contain('The current password is not right.');
    const changed = await postForm(client, '/auth/account/password', {
      _csrf: token,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(changed.status, changed.text).to.equal(303);
    expect((await client.get('/api/auth/session')).status).to.equal(200);
    expectProblem(await other.get('/api/auth/session'), 401);
    expect((await signIn(user.email, NEW_PASSWORD)).response.status).to.equal(200);
  });

  it('refuses both forms without the CSRF token (403), changing nothing', async () => {
    const { client, user } = await signedInUser('Same');
    await accountPage(client);
    const forged = { _csrf: 'x'.repeat(32) };
    const profile = await postForm(client, '/auth/account/profile', {
      ...forged,
      name: 'Changed',
      email: user.email,
    });
    expect(profile.status).to.equal(403);
    const password = await postForm(client, '/auth/account/password', {
      ...forged,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(password.status).to.equal(403);
    expect((await client.get('/api/auth/session')).body.user.name).to.equal('Same');
    expect((await signIn(user.email, PASSWORD)).response.status).to.equal(200);
  });
});
