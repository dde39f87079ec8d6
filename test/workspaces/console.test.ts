// The workspace's settings pages over HTTP: members and invitations (/settings/members) and the
// workspace itself (/settings/workspace). Role rules (a MEMBER sees no ADMIN button and its
// crafted POSTs are the 403 page), the last ADMIN, CSRF, other workspaces' ids, hostile names.
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import { PASSWORD, signedInUser, uniqueEmail, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';

const HOSTILE = '"><img src=x onerror=alert(1)><script>alert(2)</script>';

async function membersPage(client: Client, workspaceId: string, status = 200) {
  return consolePage(client, `/app/${workspaceId}/settings/members`, status);
}

async function roles(client: Client, workspaceId: string) {
  const members = await client.get(`/api/workspaces/${workspaceId}/members`);
  return Object.fromEntries(members.body.map((m: { email: string; role: string }) => [m.email, m.role]));
}

describe('console: members (/settings/members)', () => {
  it('invites with a role and shows the pending invitation with its link; without mail the flash gives it', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const page = await membersPage(client, workspaceId);
    expect(page.text).to.contain('Invite someone').and.contain('No pending invitations');
    const email = uniqueEmail('invitee');
    const base = `/app/${workspaceId}/settings/members`;
    const invited = await postConsoleForm(client, `${base}/invite`, {
      _csrf: page.token,
      email,
      role: 'ADMIN',
    });
    const after = await followRedirect(client, invited);
    const joinUrl = `http://localhost:3000/auth/register?email=${encodeURIComponent(email)}`;
    expect(after.text).to.contain(
      `Invited ${email} as ADMIN. This server sends no mail: give them this link to join: ${joinUrl}`,
    );
    expect(after.text).to.contain(`data-copy="${joinUrl}"`);
    const pending = await client.get(`/api/workspaces/${workspaceId}/invitations`);
    expect(pending.body.map((i: { email: string; role: string }) => [i.email, i.role])).to.deep.equal([
      [email, 'ADMIN'],
    ]);

    const revoke = await postConsoleForm(client, `${base}/invitations/${pending.body[0].id}/revoke`, {
      _csrf: page.token,
    });
    expect((await followRedirect(client, revoke)).text).to.contain('The invitation is revoked.');
    expect((await client.get(`/api/workspaces/${workspaceId}/invitations`)).body).to.deep.equal([]);
  });

  it('says the same after inviting someone who has an account, who is then a member', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { user } = await signedInUser('Known');
    const page = await membersPage(client, workspaceId);
    const base = `/app/${workspaceId}/settings/members`;
    const invited = await postConsoleForm(client, `${base}/invite`, {
      _csrf: page.token,
      email: user.email,
      role: 'MEMBER',
    });
    expect((await followRedirect(client, invited)).text).to.contain(
      `Invited ${user.email} as MEMBER. This server sends no mail`,
    );
    expect((await roles(client, workspaceId))[user.email]).to.equal('MEMBER');
    const invalid = await postConsoleForm(client, `${base}/invite`, {
      _csrf: page.token,
      email: 'nope',
      role: 'OWNER',
      _back: base,
    });
    const refused = await followRedirect(client, invalid);
    expect(refused.text).to.contain('email: must be a valid email address').and.contain('role:');
  });

  it('changes a role and removes a member; protects the last ADMIN with a clear message', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const base = `/app/${workspaceId}/settings/members`;
    const page = await membersPage(client, workspaceId);
    expect(page.text).to.contain('The last ADMIN: make another member ADMIN before changing this one.');
    expect(page.text).to.not.contain(`action="${base}/${user.id}/role"`);

    const self = await postConsoleForm(client, `${base}/${user.id}/role`, {
      _csrf: page.token,
      role: 'MEMBER',
      _back: base,
    });
    expect((await followRedirect(client, self)).text).to.contain('A workspace needs at least one ADMIN');
    const leaving = await postConsoleForm(client, `${base}/leave`, { _csrf: page.token, _back: base });
    expect((await followRedirect(client, leaving)).text).to.contain(
      'You are the last ADMIN of this workspace',
    );

    const promoted = await postConsoleForm(client, `${base}/${member.user.id}/role`, {
      _csrf: page.token,
      role: 'ADMIN',
    });
    expect((await followRedirect(client, promoted)).text).to.contain('is now ADMIN.');
    const removed = await postConsoleForm(client, `${base}/${member.user.id}/remove`, { _csrf: page.token });
    expect((await followRedirect(client, removed)).text).to.contain('The member is removed.');
    expect(Object.keys(await roles(client, workspaceId))).to.deep.equal([user.email]);
  });

  it('shows a MEMBER the list without buttons but Leave, and refuses their crafted POSTs (403 page)', async () => {
    const { client: admin, user: adminUser, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(admin, workspaceId, 'MEMBER');
    const base = `/app/${workspaceId}/settings/members`;
    const page = await membersPage(member.client, workspaceId);
    expect(page.text).to.contain(adminUser.email).and.contain(member.user.email);
    expect(page.text).to.not.contain('Invite someone');
    expect(page.text).to.not.contain('Change role');
    expect(page.text).to.not.contain('Pending invitations');
    expect(page.text).to.contain(`action="${base}/leave"`);
    const crafted: [string, Record<string, string>][] = [
      [`${base}/invite`, { email: uniqueEmail(), role: 'ADMIN' }],
      [`${base}/${member.user.id}/role`, { role: 'ADMIN' }],
      [`${base}/${adminUser.id}/remove`, {}],
      [`/app/${workspaceId}/settings/workspace/rename`, { name: 'Hijacked' }],
      [`/app/${workspaceId}/settings/workspace/delete`, { confirmName: 'Test Workspace' }],
    ];
    for (const [path, fields] of crafted) {
      const refused = await postConsoleForm(member.client, path, { _csrf: page.token, ...fields });
      expect(refused.status, path).to.equal(403);
    }
    expect(await roles(admin, workspaceId)).to.deep.equal({
      [adminUser.email]: 'ADMIN',
      [member.user.email]: 'MEMBER',
    });
    expect((await admin.get(`/api/workspaces/${workspaceId}`)).body.name).to.equal('Test Workspace');

    const left = await postConsoleForm(member.client, `${base}/leave`, { _csrf: page.token });
    expect(left.headers.get('location')).to.equal('/app');
    expect((await member.client.get(`/api/workspaces/${workspaceId}`)).status).to.equal(404);
  });

  it('refuses a form without its CSRF token and changes nothing', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    await membersPage(client, workspaceId);
    const email = uniqueEmail();
    const forged = await postConsoleForm(client, `/app/${workspaceId}/settings/members/invite`, {
      _csrf: 'x'.repeat(32),
      email,
      role: 'MEMBER',
    });
    expect(forged.status).to.equal(403);
    expect((await client.get(`/api/workspaces/${workspaceId}/invitations`)).body).to.deep.equal([]);
  });

  it("answers another workspace's pages, members and invitations with the 404 page", async () => {
    const { client: theirs, workspaceId: theirWorkspace } = await workspaceWithAdmin('Theirs');
    const victim = await memberOf(theirs, theirWorkspace, 'MEMBER');
    await theirs.post(`/api/workspaces/${theirWorkspace}/members`, { email: uniqueEmail(), role: 'MEMBER' });
    const invitation = (await theirs.get(`/api/workspaces/${theirWorkspace}/invitations`)).body[0];
    const { client, workspaceId } = await workspaceWithAdmin('Mine');
    const page = await membersPage(client, workspaceId);
    await membersPage(client, theirWorkspace, 404);
    const base = `/app/${workspaceId}/settings/members`;
    for (const path of [`${base}/${victim.user.id}/remove`, `${base}/invitations/${invitation.id}/revoke`]) {
      const refused = await postConsoleForm(client, path, { _csrf: page.token });
      expect(refused.status, path).to.equal(404);
    }
    expect(Object.values(await roles(theirs, theirWorkspace))).to.have.length(2);
    expect((await theirs.get(`/api/workspaces/${theirWorkspace}/invitations`)).body).to.have.length(1);
  });

  it('renders hostile names, emails and workspace names inert', async () => {
    const admin = new Client();
    const email = uniqueEmail('hostile');
    await admin.post('/api/auth/register', { name: HOSTILE, email, password: PASSWORD });
    await admin.post('/api/auth/signin', { email, password: PASSWORD });
    const workspaceId = (await admin.post('/api/workspaces', { name: HOSTILE })).body.id;
    for (const path of ['members', 'workspace']) {
      const page = await consolePage(admin, `/app/${workspaceId}/settings/${path}`);
      expect(page.text, path).to.not.contain('<img src=x');
      expect(page.text, path).to.not.contain('<script>alert');
      expect(page.text, path).to.contain('&lt;script&gt;alert(2)&lt;/script&gt;');
    }
  });
});

describe('console: workspace settings (/settings/workspace)', () => {
  it('renames the workspace, and deletes it once its name is typed', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Old Name');
    const base = `/app/${workspaceId}/settings/workspace`;
    const page = await consolePage(client, base);
    expect(page.text).to.contain('Type the workspace&#39;s name, Old Name, to confirm');
    const renamed = await postConsoleForm(client, `${base}/rename`, { _csrf: page.token, name: 'New Name' });
    expect((await followRedirect(client, renamed)).text).to.contain('The workspace is now “New Name”.');
    const empty = await postConsoleForm(client, `${base}/rename`, {
      _csrf: page.token,
      name: ' ',
      _back: base,
    });
    expect((await followRedirect(client, empty)).text).to.contain('name: is required');

    const wrong = await postConsoleForm(client, `${base}/delete`, {
      _csrf: page.token,
      confirmName: 'Old Name',
      _back: base,
    });
    expect((await followRedirect(client, wrong)).text).to.contain(
      'confirmName: must be the workspace’s name exactly',
    );
    expect((await client.get(`/api/workspaces/${workspaceId}`)).status).to.equal(200);
    const deleted = await postConsoleForm(client, `${base}/delete`, {
      _csrf: page.token,
      confirmName: 'New Name',
    });
    expect(deleted.headers.get('location')).to.equal('/app');
    expect((await client.get(`/api/workspaces/${workspaceId}`)).status).to.equal(404);
  });

  it('shows a MEMBER the name without the forms', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin('Shared');
    const member = await memberOf(admin, workspaceId, 'MEMBER');
    const page = await consolePage(member.client, `/app/${workspaceId}/settings/workspace`);
    expect(page.text).to.contain('Only an ADMIN of this workspace renames or deletes it.');
    expect(page.text)
      .to.not.contain('/settings/workspace/rename')
      .and.not.contain('/settings/workspace/delete');
  });
});
