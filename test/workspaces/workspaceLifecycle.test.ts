import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { tablesWithWorkspaceId } from '../../src/workspaces/deletion.ts';
import { createCampaign } from '../campaigns/support.ts';
import { createContact, track } from '../events/support.ts';
import { Client } from '../support/client.ts';
import {
  eventually,
  expectProblem,
  keyClient,
  uniqueEmail,
  workspaceWithAdmin,
} from '../support/factories.ts';
import { memberOf, testDb } from '../support/helpers.ts';
import { startReceiver } from '../webhooks/support.ts';

/** Rows per table (of every table with a workspace_id column) that belong to the workspace. */
async function rowsLeft(workspaceId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await tablesWithWorkspaceId(testDb())) {
    counts[table] = await testDb().oneFirst(sql.type(z.object({ count: z.number() }))`
      select count(*)::int as count from ${sql.identifier([table])} where workspace_id = ${workspaceId}
    `);
  }
  return counts;
}

/** A workspace with rows in the tables that have no foreign key to workspaces (sql/0008). */
async function busyWorkspace() {
  const { client, workspaceId } = await workspaceWithAdmin('Busy');
  const base = `/api/workspaces/${workspaceId}`;
  const receiver = await startReceiver();
  const hook = await client.post(`${base}/webhooks`, { url: receiver.url, direction: 'OUTBOUND' });
  expect(hook.status, hook.text).to.equal(201);
  const segment = await client.post(`${base}/segments`, {
    name: 'Buyers',
    rules: { event: 'purchase' },
  });
  expect(segment.status, segment.text).to.equal(201);
  const campaign = await createCampaign(client, base, {
    trigger: { type: 'segment_entered', segmentId: segment.body.id },
  });
  expect((await client.post(`${base}/campaigns/${campaign.id}/activate`)).status).to.equal(200);
  await client.post(`${base}/scoring-rules`, { name: 'Buy', eventType: 'purchase', points: 5 });
  const contact = await createContact(client, base, { email: uniqueEmail('c') });
  await track(client, base, { type: 'purchase', contactId: contact.id });
  await track(client, base, { type: 'page_view' });
  await keyClient(client, workspaceId, ['contacts:read']);
  await client.post(`${base}/members`, { email: uniqueEmail(), role: 'MEMBER' });
  await eventually(async () => receiver.requests.length > 0);
  await receiver.close();
  return { client, workspaceId, base };
}

describe('workspace rename and deletion', () => {
  it('renames the workspace for an ADMIN; a MEMBER gets 403, an empty body 400', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Old');
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const path = `/api/workspaces/${workspaceId}`;
    const renamed = await client.patch(path, { name: '  New name ' });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.body).to.include({ id: workspaceId, name: 'New name', role: 'ADMIN' });
    expectProblem(await member.client.patch(path, { name: 'Mine' }), 403);
    const empty = expectProblem(await client.patch(path, {}), 400) as unknown as {
      errors: { path: string }[];
    };
    expect(empty.errors.map((error) => error.path)).to.deep.equal(['body.name']);
    expect((await client.get(path)).body.name).to.equal('New name');
  });

  it('refuses a deletion whose confirmName is not the name (400), and deletes nothing', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Keep me');
    const path = `/api/workspaces/${workspaceId}`;
    for (const body of [{ confirmName: 'keep me' }, { confirmName: 'Keep me ' }, {}]) {
      const refused = expectProblem(await client.delete(path, body), 400) as unknown as {
        errors: { path: string }[];
      };
      expect(refused.errors.map((error) => error.path)).to.deep.equal(['body.confirmName']);
    }
    const member = await memberOf(client, workspaceId, 'MEMBER');
    expectProblem(await member.client.delete(path, { confirmName: 'Keep me' }), 403);
    expect((await client.get(path)).status).to.equal(200);
  });

  it('deletes every row of the workspace, in every table with a workspace_id column', async function () {
    this.timeout(30_000);
    const { client, workspaceId } = await busyWorkspace();
    const before = await rowsLeft(workspaceId);
    // The tables without a foreign key to workspaces are the point: they must hold rows here.
    for (const table of ['events', 'segment_memberships', 'score_changes', 'enrollments', 'webhook_messages'])
      expect(before[table], table).to.be.greaterThan(0);
    const other = await workspaceWithAdmin();
    const otherContact = await createContact(other.client, `/api/workspaces/${other.workspaceId}`, {});
    const deleted = await client.delete(`/api/workspaces/${workspaceId}`, { confirmName: 'Busy' });
    expect(deleted.status, deleted.text).to.equal(204);
    const left = Object.entries(await rowsLeft(workspaceId)).filter(([, count]) => count > 0);
    expect(left).to.deep.equal([]);
    expect(
      await testDb().oneFirst(sql.unsafe`select count(*)::int from workspaces where id = ${workspaceId}`),
    ).to.equal(0);
    expectProblem(await client.get(`/api/workspaces/${workspaceId}`), 404);
    const untouched = await other.client.get(
      `/api/workspaces/${other.workspaceId}/contacts/${otherContact.id}`,
    );
    expect(untouched.status).to.equal(200);
  });
});

describe('leaving a workspace', () => {
  it('lets a MEMBER leave (204), after which the workspace is not found', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const left = await member.client.post(`/api/workspaces/${workspaceId}/leave`);
    expect(left.status, left.text).to.equal(204);
    expectProblem(await member.client.get(`/api/workspaces/${workspaceId}`), 404);
    expect((await client.get(`/api/workspaces/${workspaceId}/members`)).body).to.have.length(1);
  });

  it('refuses the last ADMIN (409); an ADMIN with another ADMIN may leave', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/api/workspaces/${workspaceId}/leave`;
    expect(expectProblem(await client.post(path), 409).detail).to.match(/last ADMIN/);
    await memberOf(client, workspaceId, 'ADMIN');
    expect((await client.post(path)).status).to.equal(204);
  });

  it('refuses API keys (403)', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { key } = await keyClient(client, workspaceId, ['contacts:read']);
    expectProblem(await new Client(key).post(`/api/workspaces/${workspaceId}/leave`), 403);
  });
});
