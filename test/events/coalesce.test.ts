// Concurrent single-event requests to a workspace share transactions (src/events/coalesce.ts).
// Whatever group a request lands in, it must answer exactly as it would alone.
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { ingestCoalesced } from '../../src/events/coalesce.ts';
import type { TestResponse } from '../support/client.ts';
import { expectDocumented } from '../support/documented.ts';
import { expectProblem, keyClient } from '../support/factories.ts';
import { server, startSecondWeb } from '../support/server.ts';
import { createContact, outgoing, whileLocked, workspace } from './support.ts';

const BURST = 60;

async function eventCount(workspaceId: string) {
  return server().context.db.oneFirst(
    sql.unsafe`select count(*)::int from events where workspace_id = ${workspaceId}`,
  );
}

describe('events: concurrent single events', () => {
  it('each of a burst of concurrent requests answers with its own event and contact', async () => {
    const { base, workspaceId, withScopes } = await workspace();
    const client = await withScopes(['events:write']);
    const responses = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        client.post(`${base}/events`, {
          type: `visit.${i}`,
          email: `burst${i}@example.com`,
          metadata: { i },
        }),
      ),
    );
    for (const [i, response] of responses.entries()) {
      expect(response.status, response.text).to.equal(201);
      expect(response.body).to.deep.include({ type: `visit.${i}`, metadata: { i } });
      expect(response.body.contact.email).to.equal(`burst${i}@example.com`);
    }
    expect(new Set(responses.map((response) => response.body.id)).size).to.equal(BURST);
    expect(await eventCount(workspaceId)).to.equal(BURST);
    expect(await outgoing(workspaceId, 'contact.created')).to.have.length(BURST);
  });

  it('a failing request in a burst fails alone; the others are stored', async () => {
    const { base, workspaceId, withScopes } = await workspace();
    const client = await withScopes(['events:write']);
    const first = await client.post(
      `${base}/events`,
      { type: 'signup', email: 'a@example.com' },
      {
        headers: { 'idempotency-key': 'used-for-signup' },
      },
    );
    expect(first.status, first.text).to.equal(201);
    const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      client.post(`${base}/events`, body, { headers });
    const requests: Promise<TestResponse>[] = [];
    for (let i = 0; i < BURST; i++) {
      if (i === 20) requests.push(post({ type: 'click', contactId: 'ct_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }));
      else if (i === 40) requests.push(post({ type: 'purchase' }, { 'idempotency-key': 'used-for-signup' }));
      else requests.push(post({ type: 'click', email: `ok${i}@example.com` }));
    }
    const responses = await Promise.all(requests);
    expectProblem(responses[20], 404);
    expectProblem(responses[40], 409);
    const others = responses.filter((_, i) => i !== 20 && i !== 40);
    for (const response of others) expect(response.status, response.text).to.equal(201);
    expect(await eventCount(workspaceId)).to.equal(1 + others.length);
  });

  it("an error one request's rows cause, of any kind, fails that request alone; its group is stored", async () => {
    const { workspaceId } = await workspace();
    // Nested past what JSON.stringify and PostgreSQL's jsonb parser can follow: preparing this
    // request's rows throws (a RangeError or a stack-depth error), whatever the HTTP layer refuses.
    let nested: unknown = 1;
    for (let i = 0; i < 100_000; i++) nested = [nested];
    const ingest = (metadata: Record<string, unknown>, i: number) =>
      ingestCoalesced(
        server().context,
        workspaceId,
        { type: 'click', email: `n${i}@example.com`, metadata },
        15_000,
      );
    const outcomes = await Promise.allSettled(
      Array.from({ length: 33 }, (_, i) => ingest(i % 11 === 5 ? { a: nested } : { i }, i)),
    );
    const failed = outcomes.flatMap((outcome, i) => (outcome.status === 'rejected' ? [i] : []));
    expect(failed).to.deep.equal([5, 16, 27]);
    expect(await eventCount(workspaceId)).to.equal(30);
  });

  it('concurrent requests with one Idempotency-Key store one event; the rest replay it', async () => {
    const { base, workspaceId, withScopes } = await workspace();
    const client = await withScopes(['events:write']);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        client.post(
          `${base}/events`,
          { type: 'purchase', email: 'buyer@example.com' },
          {
            headers: { 'idempotency-key': 'order-42' },
          },
        ),
      ),
    );
    const statuses = responses.map((response) => response.status).sort((a, b) => b - a);
    expect(statuses).to.deep.equal([201, ...Array(19).fill(200)]);
    expect(new Set(responses.map((response) => response.body.id)).size).to.equal(1);
    for (const response of responses.filter((response) => response.status === 200))
      expect(response.headers.get('idempotent-replayed')).to.equal('true');
    expect(await eventCount(workspaceId)).to.equal(1);
  });

  it("a workspace's group waiting on a row lock does not hold up another workspace's events", async () => {
    const a = await workspace();
    const b = await workspace();
    const contact = await createContact(a.admin, a.base, { email: 'locked@example.com' });
    const { blocked } = await whileLocked(contact.id, async () => {
      const blocked = a.admin.post(`${a.base}/events`, { type: 'click', contactId: contact.id });
      await sleep(100); // A's group now waits on the lock
      const other = await b.admin.post(`${b.base}/events`, { type: 'click', email: 'free@example.com' });
      expect(other.status, other.text).to.equal(201);
      return { blocked };
    });
    const done = await blocked;
    expect(done.status, done.text).to.equal(201);
  });

  it('refuses with 503 and Retry-After an event that waited past INGEST_MAX_WAIT_MS, and stores nothing', async () => {
    const web = await startSecondWeb({ INGEST_MAX_WAIT_MS: 300 });
    try {
      const { admin, base, workspaceId } = await workspace();
      const { key } = await keyClient(admin, workspaceId, ['events:write']);
      const post = (body: Record<string, unknown>) =>
        fetch(`${web.url}${base}/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const contact = await createContact(admin, base, { email: 'held@example.com' });
      const { blocked, refused } = await whileLocked(contact.id, async () => {
        const blocked = post({ type: 'click', contactId: contact.id });
        await sleep(100); // its group now waits on the lock; the next event waits for that group
        const refused = await post({ type: 'late', email: 'late@example.com' });
        return { blocked, refused };
      });
      expect(refused.status).to.equal(503);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(refused.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const text = await refused.text();
      const answer = { status: refused.status, headers: refused.headers, body: JSON.parse(text), text };
      await expectDocumented('post', '/api/workspaces/{workspaceId}/events', answer);
      expect((await blocked).status).to.equal(201);
      const late = await server().context.db.oneFirst(
        sql.unsafe`select count(*)::int from events where workspace_id = ${workspaceId} and type = 'late'`,
      );
      expect(late).to.equal(0);
    } finally {
      await web.stop();
    }
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
