import { expect } from 'chai';
import { Client } from '../support/client.ts';
import {
  expectProblem,
  PASSWORD,
  signedInUser,
  uniqueEmail,
  workspaceWithAdmin,
} from '../support/factories.ts';
import { ISO_MS, memberOf, signIn, sql, testDb } from '../support/helpers.ts';

/** The answer with its id and timestamps blanked: what could tell one invitation from another. */
function withoutIdsAndTimes(text: string): string {
  return text
    .replace(/"inv_[0-9A-Z]{26}"/g, '"<id>"')
    .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g, '"<time>"');
}

function invite(admin: Client, workspaceId: string, email: string, role = 'MEMBER') {
  return admin.post(`/api/workspaces/${workspaceId}/members`, { email, role });
}

describe('invitations', () => {
  it('answers a registered and an unregistered email byte for byte alike (but for id and times)', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { user } = await signedInUser();
    const stranger = uniqueEmail();
    const known = await invite(client, workspaceId, user.email);
    const unknown = await invite(client, workspaceId, stranger);
    expect(known.status, known.text).to.equal(201);
    expect(unknown.status, unknown.text).to.equal(201);
    const blank = (text: string, email: string) =>
      withoutIdsAndTimes(text).replaceAll(email, '<email>').replaceAll(encodeURIComponent(email), '<email>');
    expect(blank(known.text, user.email)).to.equal(blank(unknown.text, stranger));
    expect(known.headers.get('content-type')).to.equal(unknown.headers.get('content-type'));
    expect(Object.keys(known.body).sort()).to.deep.equal([
      'createdAt',
      'email',
      'emailed',
      'expiresAt',
      'id',
      'invitedBy',
      'joinUrl',
      'role',
    ]);
    expect(unknown.body.id).to.match(/^inv_[0-9A-Z]{26}$/);
    expect(unknown.body.expiresAt).to.match(ISO_MS);
    const days = (Date.parse(unknown.body.expiresAt) - Date.now()) / 86_400_000;
    expect(days).to.be.within(13.9, 14.1);
  });

  it('takes an invited person in when they register, with the invited role', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const email = uniqueEmail();
    expect((await invite(client, workspaceId, email.toUpperCase(), 'ADMIN')).status).to.equal(201);
    const pending = await client.get(`/api/workspaces/${workspaceId}/invitations`);
    expect(pending.body.map((row: { email: string }) => row.email)).to.deep.equal([email]);
    const newcomer = new Client();
    const registered = await newcomer.post('/api/auth/register', { name: 'New', email, password: PASSWORD });
    expect(registered.status).to.equal(201);
    await newcomer.post('/api/auth/signin', { email, password: PASSWORD });
    const workspace = await newcomer.get(`/api/workspaces/${workspaceId}`);
    expect(workspace.status, workspace.text).to.equal(200);
    expect(workspace.body.role).to.equal('ADMIN');
    expect((await client.get(`/api/workspaces/${workspaceId}/invitations`)).body).to.deep.equal([]);
  });

  it('takes a person in at sign-in when the invitation came after they registered', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    const email = uniqueEmail();
    const newcomer = new Client();
    await newcomer.post('/api/auth/register', { name: 'Late', email, password: PASSWORD });
    // An invitation left pending (as when it raced the registration) is accepted at sign-in.
    await testDb().query(sql.typeAlias('void')`
      insert into invitations (id, workspace_id, email, role, expires_at)
      values ('inv_01JD2Z3K4M5N6P7Q8R9S0T1V2W', ${workspaceId}, ${email}, 'MEMBER', now() + interval '1 day')
    `);
    const { client: signedIn } = await signIn(email);
    expect((await signedIn.get(`/api/workspaces/${workspaceId}`)).status).to.equal(200);
  });

  it('does not take anyone in on an expired or revoked invitation', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const [expired, revoked] = [uniqueEmail(), uniqueEmail()];
    const first = await invite(client, workspaceId, expired);
    await testDb().query(sql.typeAlias('void')`
      update invitations set expires_at = now() - interval '1 second' where id = ${first.body.id}
    `);
    const second = await invite(client, workspaceId, revoked);
    const path = `/api/workspaces/${workspaceId}/invitations/${second.body.id}`;
    expect((await client.delete(path)).status).to.equal(204);
    expectProblem(await client.delete(path), 404);
    for (const email of [expired, revoked]) {
      const person = new Client();
      await person.post('/api/auth/register', { name: 'P', email, password: PASSWORD });
      await person.post('/api/auth/signin', { email, password: PASSWORD });
      expectProblem(await person.get(`/api/workspaces/${workspaceId}`), 404);
    }
    const listed = await client.get(`/api/workspaces/${workspaceId}/invitations`);
    expect(listed.body.map((row: { id: string }) => row.id)).to.deep.equal([first.body.id]);
  });

  it('renews a pending invitation when the email is invited again', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const email = uniqueEmail();
    const first = await invite(client, workspaceId, email, 'MEMBER');
    const again = await invite(client, workspaceId, email, 'ADMIN');
    expect(again.body.id).to.equal(first.body.id);
    const listed = await client.get(`/api/workspaces/${workspaceId}/invitations`);
    expect(listed.body).to.have.length(1);
    expect(listed.body[0]).to.include({ email, role: 'ADMIN' });
  });

  it('lets only ADMINs invite, list and revoke (403 for a MEMBER)', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const invitation = await invite(client, workspaceId, uniqueEmail());
    const base = `/api/workspaces/${workspaceId}`;
    expectProblem(await invite(member.client, workspaceId, uniqueEmail()), 403);
    expectProblem(await member.client.get(`${base}/invitations`), 403);
    expectProblem(await member.client.delete(`${base}/invitations/${invitation.body.id}`), 403);
  });
});
