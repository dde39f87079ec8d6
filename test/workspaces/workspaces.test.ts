import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { expectProblem, signedInUser, workspaceWithAdmin } from '../support/factories.ts';
import { ISO_MS, memberOf } from '../support/helpers.ts';

describe('workspaces', () => {
  it('creates a workspace with 201; the creator is its ADMIN', async () => {
    const { client } = await signedInUser();
    const response = await client.post('/api/workspaces', { name: '  Acme  ' });
    expect(response.status, response.text).to.equal(201);
    expect(Object.keys(response.body).sort()).to.deep.equal(['createdAt', 'id', 'name', 'role']);
    expect(response.body).to.include({ name: 'Acme', role: 'ADMIN' });
    expect(response.body.id).to.match(/^ws_[0-9A-Z]{26}$/);
    expect(response.body.createdAt).to.match(ISO_MS);
  });

  it('lists only the caller’s workspaces, with the caller’s role in each, oldest first', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('First');
    const second = await client.post('/api/workspaces', { name: 'Second' });
    const other = await workspaceWithAdmin('Not mine');
    const member = await memberOf(other.client, other.workspaceId, 'MEMBER');
    const list = await client.get('/api/workspaces');
    expect(list.status).to.equal(200);
    expect(list.body.map((w: { id: string; role: string }) => [w.id, w.role])).to.deep.equal([
      [workspaceId, 'ADMIN'],
      [second.body.id, 'ADMIN'],
    ]);
    const memberList = await member.client.get('/api/workspaces');
    expect(memberList.body).to.have.length(1);
    expect(memberList.body[0]).to.include({ id: other.workspaceId, role: 'MEMBER' });
  });

  it('gets one workspace', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Solo');
    const response = await client.get(`/api/workspaces/${workspaceId}`);
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ id: workspaceId, name: 'Solo', role: 'ADMIN' });
  });

  it('answers 404 for a workspace the caller is not in, and for one that does not exist', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    const { client } = await signedInUser();
    expectProblem(await client.get(`/api/workspaces/${workspaceId}`), 404);
    expectProblem(await client.get('/api/workspaces/ws_01JD2Z3K4M5N6P7Q8R9S0T1V2W'), 404);
    expectProblem(await client.get('/api/workspaces/anything'), 404);
  });

  it('answers 400 for a missing, blank or too long name', async () => {
    const { client } = await signedInUser();
    for (const body of [{}, { name: '  ' }, { name: 'x'.repeat(101) }, { name: 5 }]) {
      expectProblem(await client.post('/api/workspaces', body), 400);
    }
  });

  it('answers 401 without a session', async () => {
    expectProblem(await new Client().get('/api/workspaces'), 401);
    expectProblem(await new Client().post('/api/workspaces', { name: 'x' }), 401);
  });
});

describe('workspace members', () => {
  it('lists members to any member, with name, email, role and createdAt', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const list = await member.client.get(`/api/workspaces/${workspaceId}/members`);
    expect(list.status).to.equal(200);
    expect(list.body).to.have.length(2);
    expect(list.body[0]).to.include({ userId: user.id, email: user.email, name: user.name, role: 'ADMIN' });
    expect(list.body[1]).to.include({ userId: member.user.id, role: 'MEMBER' });
    expect(list.body[1].createdAt).to.match(ISO_MS);
  });

  it('adds a registered user at once with 201 (email matched case-insensitively)', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { user } = await signedInUser('New Member');
    const added = await client.post(`/api/workspaces/${workspaceId}/members`, {
      email: user.email.toUpperCase(),
      role: 'MEMBER',
    });
    expect(added.status, added.text).to.equal(201);
    expect(added.body).to.include({ email: user.email, role: 'MEMBER' });
    const members = await client.get(`/api/workspaces/${workspaceId}/members`);
    expect(members.body[1]).to.include({
      userId: user.id,
      name: 'New Member',
      email: user.email,
      role: 'MEMBER',
    });
  });

  it('answers 409 for an existing member', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(client, workspaceId, 'MEMBER');
    for (const email of [member.user.email, user.email]) {
      expectProblem(
        await client.post(`/api/workspaces/${workspaceId}/members`, { email, role: 'ADMIN' }),
        409,
      );
    }
  });

  it('answers 400 for an invalid role or email', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { user } = await signedInUser();
    for (const body of [
      { email: user.email, role: 'OWNER' },
      { email: 'nope', role: 'MEMBER' },
      { email: user.email },
    ]) {
      expectProblem(await client.post(`/api/workspaces/${workspaceId}/members`, body), 400);
    }
  });

  it('changes a member’s role with PATCH', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const path = `/api/workspaces/${workspaceId}/members/${member.user.id}`;
    const promoted = await client.patch(path, { role: 'ADMIN' });
    expect(promoted.status, promoted.text).to.equal(200);
    expect(promoted.body).to.include({ userId: member.user.id, role: 'ADMIN' });
    // The promoted member can now act as an ADMIN.
    const keys = await member.client.get(`/api/workspaces/${workspaceId}/keys`);
    expect(keys.status).to.equal(200);
    expectProblem(await client.patch(path, { role: 'BOSS' }), 400);
  });

  it('removes a member with 204; they lose access (404)', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const removed = await client.delete(`/api/workspaces/${workspaceId}/members/${member.user.id}`);
    expect(removed.status).to.equal(204);
    expectProblem(await member.client.get(`/api/workspaces/${workspaceId}`), 404);
    expectProblem(await client.delete(`/api/workspaces/${workspaceId}/members/${member.user.id}`), 404);
  });

  it('answers 404 when changing a user who is not a member', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { user } = await signedInUser();
    expectProblem(
      await client.patch(`/api/workspaces/${workspaceId}/members/${user.id}`, { role: 'ADMIN' }),
      404,
    );
    expectProblem(
      await client.patch(`/api/workspaces/${workspaceId}/members/usr_nobody`, { role: 'ADMIN' }),
      404,
    );
  });

  it('refuses every change by a MEMBER (403), while the member may still list', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const { user: outsider } = await signedInUser();
    const base = `/api/workspaces/${workspaceId}/members`;
    const attempts = [
      await member.client.post(base, { email: outsider.email, role: 'MEMBER' }),
      await member.client.patch(`${base}/${member.user.id}`, { role: 'ADMIN' }),
      await member.client.patch(`${base}/${user.id}`, { role: 'MEMBER' }),
      await member.client.delete(`${base}/${user.id}`),
    ];
    for (const attempt of attempts) expect(expectProblem(attempt, 403).type).to.match(/admin-required$/);
    expect((await member.client.get(base)).status).to.equal(200);
  });

  it('refuses to demote or remove the last ADMIN (409), and allows it once there is another', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const self = `/api/workspaces/${workspaceId}/members/${user.id}`;
    expect(expectProblem(await client.patch(self, { role: 'MEMBER' }), 409).type).to.match(/last-admin$/);
    expectProblem(await client.delete(self), 409);
    await memberOf(client, workspaceId, 'ADMIN');
    expect((await client.patch(self, { role: 'MEMBER' })).status).to.equal(200);
  });

  it('keeps one ADMIN when two ADMINs demote each other at the same time', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const other = await memberOf(client, workspaceId, 'ADMIN');
    const base = `/api/workspaces/${workspaceId}/members`;
    const results = await Promise.all([
      client.patch(`${base}/${other.user.id}`, { role: 'MEMBER' }),
      other.client.patch(`${base}/${user.id}`, { role: 'MEMBER' }),
    ]);
    const statuses = results.map((result) => result.status).sort();
    // Whichever runs second either sees itself demoted (403) or the last ADMIN (409); never both succeed.
    expect(statuses[0]).to.equal(200);
    expect([403, 409]).to.include(statuses[1]);
    const members = await client.get(base).then((r) => (r.status === 200 ? r : other.client.get(base)));
    expect(members.body.filter((m: { role: string }) => m.role === 'ADMIN')).to.have.length(1);
  });
});
