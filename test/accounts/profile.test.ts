// A signed-in user's name and email, through PATCH /api/auth/profile and the console's /app/account page
// (which also changes the password, through the same service as POST /api/auth/password).
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import {
  expectProblem,
  PASSWORD,
  signedInUser,
  uniqueEmail,
  workspaceWithAdmin,
} from '../support/factories.ts';
import { postForm, signIn } from '../support/helpers.ts';

const NEW_PASSWORD = 'another good passphrase';

const accountPage = (client: Client) => consolePage(client, '/app/account');

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

describe('account page (/app/account)', () => {
  it('sends a visitor without a session to sign in and back', async () => {
    const page = await new Client().get('/app/account');
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/auth/signin?next=%2Fapp%2Faccount');
    expect((await postForm(new Client(), '/app/account/profile', { name: 'X' })).status).to.equal(303);
  });

  it('is linked from the shell, shows the name and email escaped, and saves a new name', async () => {
    const { client } = await signedInUser('"><img src=x onerror=alert(1)>');
    const page = await accountPage(client);
    expect(page.text).to.contain('href="/app/account"');
    expect(page.text).to.not.contain('<img src=x');
    expect(page.text).to.contain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    const current = (await client.get('/api/auth/session')).body.user;
    const saved = await postConsoleForm(client, '/app/account/profile', {
      _csrf: page.token,
      _back: '/app/account',
      name: 'Grace',
      email: current.email,
    });
    expect((await followRedirect(client, saved)).text).to.contain('Your profile is saved.');
    expect((await client.get('/api/auth/session')).body.user.name).to.equal('Grace');
  });

  it('says what is wrong: an empty name, an email change without the password; nothing changes', async () => {
    const { client, user } = await signedInUser('Kept');
    const { token } = await accountPage(client);
    const form = { _csrf: token, _back: '/app/account' };
    const empty = await postConsoleForm(client, '/app/account/profile', {
      ...form,
      name: ' ',
      email: user.email,
    });
    expect((await followRedirect(client, empty)).text).to.contain('name: is required');
    const moved = await postConsoleForm(client, '/app/account/profile', {
      ...form,
      name: 'Kept',
      email: uniqueEmail(),
    });
    expect((await followRedirect(client, moved)).text).to.contain(
      'currentPassword: is required to change the email',
    );
    expect((await client.get('/api/auth/session')).body.user).to.include({ name: 'Kept', email: user.email });
  });

  it('changes the password, ending the other sessions, and refuses a wrong current one', async () => {
    const { client, user } = await signedInUser();
    const { client: other } = await signIn(user.email);
    const { token } = await accountPage(client);
    const form = { _csrf: token, _back: '/app/account' };
    const wrong = await postConsoleForm(client, '/app/account/password', {
      ...form,
      currentPassword: 'not it',
      newPassword: NEW_PASSWORD,
    });
    expect((await followRedirect(client, wrong)).text).to.contain('is not your current password');
    const changed = await postConsoleForm(client, '/app/account/password', {
      ...form,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect((await followRedirect(client, changed)).text).to.contain('Your password is changed');
    expectProblem(await other.get('/api/auth/session'), 401);
    expect((await signIn(user.email, NEW_PASSWORD)).response.status).to.equal(200);
  });

  it('refuses both forms without the CSRF token (403), changing nothing', async () => {
    const { client, user } = await signedInUser('Same');
    await accountPage(client);
    const forged = { _csrf: 'x'.repeat(32) };
    const profile = await postForm(client, '/app/account/profile', {
      ...forged,
      name: 'Changed',
      email: user.email,
    });
    expect(profile.status).to.equal(403);
    const password = await postForm(client, '/app/account/password', {
      ...forged,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(password.status).to.equal(403);
    expect((await client.get('/api/auth/session')).body.user.name).to.equal('Same');
    expect((await signIn(user.email, PASSWORD)).response.status).to.equal(200);
  });
});
