import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { workspace } from './support.ts';

async function stored(workspaceId: string) {
  return server().context.db.oneFirst(sql.unsafe`
    select (select count(*) from events where workspace_id = ${workspaceId})::int
         + (select count(*) from contacts where workspace_id = ${workspaceId})::int`);
}

describe('events: batch', () => {
  it('stores every event in order, creating each new contact once', async () => {
    const { admin, base, workspaceId } = await workspace();
    const events = [
      { type: 'page_view', email: 'a@example.com' },
      { type: 'page_view', anonymousId: 'dev-1' },
      { type: 'signup', email: 'A@example.com', metadata: { plan: 'pro' } },
      { type: 'page_view', anonymousId: 'dev-1' },
      { type: 'ping' },
    ];
    const response = await admin.post(`${base}/events/batch`, { events });
    expect(response.status, response.text).to.equal(201);
    const data = response.body.data;
    expect(data.map((e: { type: string }) => e.type)).to.deep.equal(events.map((e) => e.type));
    expect(data[0].contact.id).to.equal(data[2].contact.id);
    expect(data[1].contact.id).to.equal(data[3].contact.id);
    expect(data[4].contact).to.equal(null);
    const contacts = await admin.get(`${base}/contacts`);
    expect(contacts.body.total).to.equal(2);
    const created = await server().context.db.oneFirst(sql.unsafe`
      select count(*)::int from outgoing_events where workspace_id = ${workspaceId} and type = 'contact.created'`);
    expect(created).to.equal(2);
  });

  it('takes 1,000 events and refuses 1,001', async () => {
    const { admin, base, workspaceId } = await workspace();
    const events = Array.from({ length: 1000 }, (_, i) => ({
      type: 'bulk',
      email: `u${i % 100}@example.com`,
    }));
    const accepted = await admin.post(`${base}/events/batch`, { events });
    expect(accepted.status, accepted.text).to.equal(201);
    expect(accepted.body.data).to.have.length(1000);
    expect((await admin.get(`${base}/contacts`)).body.total).to.equal(100);
    const before = await stored(workspaceId);
    expectProblem(
      await admin.post(`${base}/events/batch`, { events: [...events, { type: 'one-too-many' }] }),
      400,
    );
    expect(await stored(workspaceId)).to.equal(before);
  });

  it('refuses the whole batch when one item is invalid, naming its index', async () => {
    const { admin, base, workspaceId } = await workspace();
    const events = [
      { type: 'ok', email: 'ok@example.com' },
      { type: 'ok' },
      { type: 'ok' },
      { metadata: {} },
    ];
    const problem = expectProblem(await admin.post(`${base}/events/batch`, { events }), 400) as unknown as {
      errors: { path: string }[];
    };
    expect(problem.errors.map((error) => error.path)).to.deep.equal(['body.events.3.type']);
    expect(await stored(workspaceId)).to.equal(0);
    expectProblem(await admin.post(`${base}/events/batch`, { events: [] }), 400);
  });

  it('refuses the whole batch when an item names an unknown contact', async () => {
    const { admin, base, workspaceId } = await workspace();
    const events = [
      { type: 'ok', email: 'new@example.com' },
      { type: 'ok', contactId: 'ct_missing' },
    ];
    const problem = expectProblem(await admin.post(`${base}/events/batch`, { events }), 404);
    expect(problem.detail).to.include('events.1.contactId');
    expect(await stored(workspaceId)).to.equal(0);
  });

  it('is idempotent per item id and per position under an Idempotency-Key header', async () => {
    const { admin, base, workspaceId } = await workspace();
    const events = [{ type: 'a', id: 'item-a' }, { type: 'b' }];
    const headers = { 'idempotency-key': 'batch-1' };
    const first = await admin.post(`${base}/events/batch`, { events }, { headers });
    const again = await admin.post(`${base}/events/batch`, { events }, { headers });
    expect(again.status).to.equal(201);
    expect(again.body).to.deep.equal(first.body);
    const single = await admin.post(`${base}/events`, { type: 'a', id: 'item-a' });
    expect(single.status).to.equal(200);
    expect(single.body.id).to.equal(first.body.data[0].id);
    const duplicates = await admin.post(`${base}/events/batch`, {
      events: [
        { type: 'c', id: 'twice' },
        { type: 'c', id: 'twice' },
      ],
    });
    expect(duplicates.body.data[0].id).to.equal(duplicates.body.data[1].id);
    expect(
      await server().context.db.oneFirst(sql.unsafe`
      select count(*)::int from events where workspace_id = ${workspaceId}`),
    ).to.equal(3);
  });

  it('answers 409 naming the item that reuses an idempotency key with a different body, and stores nothing', async () => {
    const { admin, base, workspaceId } = await workspace();
    const headers = { 'idempotency-key': 'batch-409' };
    const events = [{ type: 'a' }, { type: 'b', metadata: { n: 1 } }, { type: 'c', id: 'own-key' }];
    expect((await admin.post(`${base}/events/batch`, { events }, { headers })).status).to.equal(201);
    const before = await stored(workspaceId);

    // The same header, item 1 changed (same type, other metadata): not a replay.
    const changed = [events[0], { type: 'b', metadata: { n: 2 } }, { type: 'd' }];
    const conflict = expectProblem(
      await admin.post(`${base}/events/batch`, { events: changed }, { headers }),
      409,
    );
    expect(conflict.detail).to.match(/^Item 1: /);
    expect((conflict as { errors?: unknown }).errors).to.deep.equal([
      { path: 'body.events.1', message: 'reuses an idempotency key with a different body' },
    ]);
    // An item's own id, used before with another body.
    const reused = expectProblem(
      await admin.post(`${base}/events/batch`, {
        events: [{ type: 'x' }, { type: 'c', id: 'own-key', metadata: {} }],
      }),
      409,
    );
    expect(reused.detail).to.match(/^Item 1: /);
    // Twice in one batch with different bodies.
    const twice = expectProblem(
      await admin.post(`${base}/events/batch`, {
        events: [
          { type: 'e', id: 'twice' },
          { type: 'f', id: 'twice' },
        ],
      }),
      409,
    );
    expect(twice.detail).to.match(/^Item 1: /);
    expect(await stored(workspaceId)).to.equal(before);
    // A single event with a used key and another body: 409 too; with the same body, a replay.
    expectProblem(await admin.post(`${base}/events`, { type: 'c', id: 'own-key', metadata: { x: 1 } }), 409);
    expect((await admin.post(`${base}/events`, { type: 'c', id: 'own-key' })).status).to.equal(200);
  });

  it('needs events:write', async () => {
    const { base, withScopes } = await workspace();
    const reader = await withScopes(['events:read', 'contacts:write']);
    const problem = expectProblem(
      await reader.post(`${base}/events/batch`, { events: [{ type: 'x' }] }),
      403,
    );
    expect(problem.detail).to.include('events:write');
  });
});
