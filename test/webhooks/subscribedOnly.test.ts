// The outbox keeps only events some endpoint listens to, and an endpoint receives the events
// emitted after it began to listen (created, or re-enabled): none from before, even those
// recorded for another endpoint and not yet fanned out.
import { expect } from 'chai';
import { z } from 'zod';
import { collectEmits, emit, keepListenedEmits } from '../../src/outbox/emit.ts';
import { messagingWorkspace, sendHi, startSink, waitForStatus } from '../messages/support.ts';
import type { Client } from '../support/client.ts';
import { eventually, workspaceWithAdmin } from '../support/factories.ts';
import { sql, testDb } from '../support/helpers.ts';
import { createContact, createEndpoint, deliveries, useReceiver, webhooksPath } from './support.ts';

const TypeCount = z.object({ type: z.string(), n: z.number() });

/** How many outgoing events of each type the workspace recorded. */
async function outboxTypes(workspaceId: string): Promise<Record<string, number>> {
  const rows = await testDb().any(sql.type(TypeCount)`
    select type, count(*)::int as n from outgoing_events where workspace_id = ${workspaceId} group by type`);
  return Object.fromEntries(rows.map((row) => [row.type, row.n]));
}

async function batch(admin: Client, workspaceId: string, events: Record<string, unknown>[]) {
  const response = await admin.post(`/api/workspaces/${workspaceId}/events/batch`, { events });
  expect(response.status, response.text).to.equal(201);
}

const someEvents = [
  { type: 'page_view', email: 'a@example.com' },
  { type: 'signup', email: 'b@example.com' },
  { type: 'page_view', email: 'a@example.com' },
];

/** Emits contact.updated in a transaction that begins now (its occurred_at) and commits after `meanwhile`. */
async function emitAcross(workspaceId: string, meanwhile: () => Promise<void>) {
  await testDb().transaction(async (tx) => {
    await meanwhile();
    await emit(tx, { workspaceId, type: 'contact.updated', data: { contactId: 'old' } });
  });
}

async function eventsReceived(admin: Client, workspaceId: string, endpointId: string) {
  return (await deliveries(admin, workspaceId, `&endpointId=${endpointId}`)).map((record) => record.event);
}

describe('webhooks: only what someone listens to', () => {
  const receiver = useReceiver();

  it('records no outgoing event for batch ingest or a send when no endpoint listens', async () => {
    const sink = await startSink();
    try {
      const { admin, client, workspaceId, base } = await messagingWorkspace(sink, { listening: false });
      await batch(admin, workspaceId, someEvents);
      const contact = await admin.post(`${base}/contacts`, { email: 'c@example.com' });
      const sent = await sendHi(client, base, contact.body.id);
      await waitForStatus(client, base, sent.body.id, 'sent');
      // A disabled endpoint and an INBOUND one listen to nothing either.
      const disabled = await createEndpoint(admin, workspaceId, { url: receiver().url, active: false });
      await createEndpoint(admin, workspaceId, { direction: 'INBOUND' });
      await batch(admin, workspaceId, someEvents);
      expect(disabled.active).to.equal(false);
      expect(await outboxTypes(workspaceId)).to.deep.equal({});
    } finally {
      await sink.close();
    }
  });

  it('records only the types an endpoint subscribes to, and delivers them', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(admin, workspaceId, {
      url: receiver().url,
      events: ['contact.created'],
    });
    await batch(admin, workspaceId, someEvents);
    expect(await outboxTypes(workspaceId)).to.deep.equal({ 'contact.created': 2 });
    await eventually(async () => (await eventsReceived(admin, workspaceId, endpoint.id)).length === 2);

    const widened = await admin.patch(`${webhooksPath(workspaceId)}/${endpoint.id}`, {
      events: ['contact.created', 'event.tracked'],
    });
    expect(widened.status, widened.text).to.equal(200);
    await batch(admin, workspaceId, [{ type: 'page_view', email: 'a@example.com' }]);
    expect(await outboxTypes(workspaceId)).to.deep.equal({ 'contact.created': 2, 'event.tracked': 1 });
  });

  it('records every type for an endpoint without a list, through batch ingest', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    await createEndpoint(admin, workspaceId, { url: receiver().url });
    await batch(admin, workspaceId, someEvents);
    const types = await outboxTypes(workspaceId);
    expect(types).to.include({ 'contact.created': 2, 'event.tracked': 3 });
  });

  it('narrows what a transaction collects to the types listened to when it looked, before and after', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    await createEndpoint(admin, workspaceId, { url: receiver().url }); // every type, at insert time
    const created = { workspaceId, type: 'contact.created' as const, data: { contactId: 'ct_1' } };
    const updated = { workspaceId, type: 'contact.updated' as const, data: { contactId: 'ct_1' } };
    await testDb().transaction((tx) =>
      collectEmits(tx, async () => {
        await emit(tx, created);
        await emit(tx, updated);
        keepListenedEmits(tx, ['contact.updated']);
        await emit(tx, created);
        await emit(tx, updated);
      }),
    );
    expect(await outboxTypes(workspaceId)).to.deep.equal({ 'contact.updated': 2 });
  });

  it('gives an endpoint the events emitted after its creation, none from before', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    await createContact(admin, workspaceId, 'before@example.com'); // nobody listens: not recorded
    const first = await createEndpoint(admin, workspaceId, { url: receiver().url });
    let second = { id: '' };
    // An event of a transaction that began before the second endpoint was created, committed
    // after: recorded for the first endpoint, not the second's history.
    await emitAcross(workspaceId, async () => {
      second = await createEndpoint(admin, workspaceId, { url: receiver().url });
    });
    await createContact(admin, workspaceId, 'after@example.com');

    await eventually(async () => (await eventsReceived(admin, workspaceId, first.id)).length === 2);
    await eventually(async () => (await eventsReceived(admin, workspaceId, second.id)).length === 1);
    expect(await eventsReceived(admin, workspaceId, first.id)).to.have.members([
      'contact.updated',
      'contact.created',
    ]);
    expect(await eventsReceived(admin, workspaceId, second.id)).to.deep.equal(['contact.created']);
    const bodies = receiver().requests.map((request) => JSON.parse(request.body).data.email);
    expect(bodies).not.to.include('before@example.com');
  });

  it('gives a re-enabled endpoint the events emitted after it was enabled again', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const always = await createEndpoint(admin, workspaceId, {
      url: receiver().url,
      events: ['contact.updated'],
    });
    const paused = await createEndpoint(admin, workspaceId, { url: receiver().url, active: false });
    await emitAcross(workspaceId, async () => {
      const enabled = await admin.patch(`${webhooksPath(workspaceId)}/${paused.id}`, { active: true });
      expect(enabled.status, enabled.text).to.equal(200);
    });
    await createContact(admin, workspaceId, 'after@example.com');

    await eventually(async () => (await eventsReceived(admin, workspaceId, always.id)).length === 1);
    await eventually(async () => (await eventsReceived(admin, workspaceId, paused.id)).length === 1);
    expect(await eventsReceived(admin, workspaceId, paused.id)).to.deep.equal(['contact.created']);
  });
});
