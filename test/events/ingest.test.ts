import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { EVENT_DATA } from '../../src/outbox/eventTypes.ts';
import { expectDocumented } from '../support/documented.ts';
import { expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { createContact, track, workspace } from './support.ts';

async function count(table: 'events' | 'contacts' | 'outgoing_events', workspaceId: string) {
  return server().context.db.oneFirst(
    sql.unsafe`select count(*)::int from ${sql.identifier([table])} where workspace_id = ${workspaceId}`,
  );
}

describe('events: ingest and list', () => {
  describe('happy paths', () => {
    it('stores an event with tracking fields and creates the contact from email', async () => {
      const { admin, base, workspaceId } = await workspace();
      const event = await track(admin, base, {
        type: 'page_view',
        email: 'visitor@example.com',
        firstName: 'Vi',
        metadata: { path: '/pricing' },
        sessionId: 's1',
        pageUrl: 'https://example.com/pricing',
        referrer: 'https://google.com',
        utmSource: 'google',
        utmMedium: 'cpc',
        utmCampaign: 'spring',
      });
      expect(event).to.deep.include({
        type: 'page_view',
        metadata: { path: '/pricing' },
        sessionId: 's1',
        utmCampaign: 'spring',
      });
      expect(event.contact).to.include({ email: 'visitor@example.com', firstName: 'Vi', lastName: null });
      const tracked = await server().context.db.anyFirst(sql.unsafe`
        select data from outgoing_events where workspace_id = ${workspaceId} and type = 'event.tracked'`);
      expect(tracked).to.deep.equal([
        { contactId: event.contact.id, eventType: 'page_view', metadata: { path: '/pricing' } },
      ]);
    });

    it('accepts an event without any contact, and a past timestamp', async () => {
      const { admin, base } = await workspace();
      const event = await track(admin, base, { type: 'deploy', timestamp: '2024-01-02T03:04:05+02:00' });
      expect(event.contact).to.equal(null);
      expect(event.timestamp).to.equal('2024-01-02T01:04:05.000Z');
      expect(event).not.to.have.property('sessionId');
    });

    it('announces an event without any contact as event.tracked with contactId null, as documented', async () => {
      const { admin, base, workspaceId } = await workspace();
      await track(admin, base, { type: 'deploy' });
      const tracked = await server().context.db.anyFirst(sql.unsafe`
        select data from outgoing_events where workspace_id = ${workspaceId} and type = 'event.tracked'`);
      expect(tracked).to.deep.equal([{ contactId: null, eventType: 'deploy', metadata: {} }]);
      const documented = z.object(EVENT_DATA['event.tracked']).safeParse(tracked[0]);
      expect(documented.error?.issues ?? []).to.deep.equal([]);
    });

    it('lists newest first, filtered by contact and type, paging back with before', async () => {
      const { admin, base } = await workspace();
      const contact = await createContact(admin, base, { email: 'l@example.com' });
      for (const [type, minute] of [
        ['a', '01'],
        ['b', '02'],
        ['a', '03'],
      ]) {
        await track(admin, base, { type, contactId: contact.id, timestamp: `2025-01-01T00:${minute}:00Z` });
      }
      await track(admin, base, { type: 'a', email: 'other@example.com', timestamp: '2025-01-01T00:04:00Z' });
      const all = await admin.get(`${base}/events`);
      expect(all.body.map((e: { timestamp: string }) => e.timestamp.slice(14, 16))).to.deep.equal([
        '04',
        '03',
        '02',
        '01',
      ]);
      const mine = await admin.get(`${base}/events?contactId=${contact.id}&type=a`);
      expect(mine.body).to.have.length(2);
      const limited = await admin.get(`${base}/events?limit=2`);
      expect(limited.body).to.have.length(2);
      const older = await admin.get(`${base}/events?before=${encodeURIComponent(limited.body[1].timestamp)}`);
      expect(older.body.map((e: { type: string }) => e.type)).to.deep.equal(['b', 'a']);
    });

    it('pages back with beforeId through events that share a timestamp, skipping and repeating none', async () => {
      const { admin, base } = await workspace();
      const timestamp = '2024-05-05T05:05:05.000Z';
      const events = Array.from({ length: 5 }, (_, i) => ({ type: 'tie', metadata: { i }, timestamp }));
      const batch = await admin.post(`${base}/events/batch`, { events });
      expect(batch.status, batch.text).to.equal(201);
      await track(admin, base, { type: 'tie', timestamp: '2024-05-05T05:05:04.000Z' });
      const seen: string[] = [];
      let page = await admin.get(`${base}/events?type=tie&limit=2`);
      while (page.body.length > 0) {
        seen.push(...page.body.map((event: { id: string }) => event.id));
        page = await admin.get(`${base}/events?type=tie&limit=2&beforeId=${seen.at(-1)}`);
        expect(page.status, page.text).to.equal(200);
      }
      expect(seen).to.have.length(6);
      expect(new Set(seen).size).to.equal(6);
      expect(seen.slice(0, 5).sort()).to.deep.equal(
        batch.body.data.map((event: { id: string }) => event.id).sort(),
      );
      const unknown = await admin.get(`${base}/events?beforeId=evt_01ARZ3NDEKTSV4RRFFQ69G5FAV`);
      expectProblem(unknown, 400);
      expect(unknown.body.errors[0].path).to.equal('query.beforeId');
    });
    it('answers an event without a contact as the served OpenAPI document says', async () => {
      const { admin, base } = await workspace();
      const path = '/api/workspaces/{workspaceId}/events';
      const created = await admin.post(`${base}/events`, { type: 'anonymous.ping' });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.contact).to.equal(null);
      await expectDocumented('post', path, created);
      const listed = await admin.get(`${base}/events`);
      expect(listed.body[0].contact).to.equal(null);
      await expectDocumented('get', path, listed);
      // null is said on the property; the ContactSummary component itself stays an object.
      const document = (await admin.get('/api/openapi')).body;
      expect(document.components.schemas.ContactSummary.type).to.equal('object');
      expect(document.components.schemas.Event.properties.contact.anyOf).to.deep.equal([
        { $ref: '#/components/schemas/ContactSummary' },
        { type: 'null' },
      ]);
    });
  });

  describe('idempotency', () => {
    it('replays the first event for a repeated Idempotency-Key with no second side effect', async () => {
      const { admin, base, workspaceId } = await workspace();
      const body = { type: 'purchase', email: 'buyer@example.com', metadata: { amount: 5 } };
      const headers = { 'idempotency-key': 'order-1' };
      const first = await admin.post(`${base}/events`, body, { headers });
      expect(first.status, first.text).to.equal(201);
      const outgoingAfterFirst = await count('outgoing_events', workspaceId);
      const again = await admin.post(`${base}/events`, body, { headers });
      expect(again.status, again.text).to.equal(200);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      await expectDocumented('post', '/api/workspaces/{workspaceId}/events', again);
      expect(again.body).to.deep.equal(first.body);
      expect(await count('events', workspaceId)).to.equal(1);
      expect(await count('outgoing_events', workspaceId)).to.equal(outgoingAfterFirst);
    });

    it('treats body id as the idempotency key, and refuses it with a different type', async () => {
      const { admin, base, workspaceId } = await workspace();
      const first = await admin.post(`${base}/events`, { id: 'k1', type: 'signup' });
      const again = await admin.post(`${base}/events`, { id: 'k1', type: 'signup' });
      expect(again.status).to.equal(200);
      expect(again.body.id).to.equal(first.body.id);
      expectProblem(await admin.post(`${base}/events`, { id: 'k1', type: 'other' }), 409);
      expect(await count('events', workspaceId)).to.equal(1);
      expectProblem(
        await admin.post(`${base}/events`, { id: 'a', type: 't' }, { headers: { 'idempotency-key': 'b' } }),
        400,
      );
    });

    it('serialises concurrent retries of one key into one event', async () => {
      const { admin, base, workspaceId } = await workspace();
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          admin.post(
            `${base}/events`,
            { type: 'x', email: 'race@example.com' },
            { headers: { 'idempotency-key': 'race' } },
          ),
        ),
      );
      expect(responses.map((response) => response.status).sort()).to.deep.equal([200, 200, 200, 200, 201]);
      expect(new Set(responses.map((response) => response.body.id)).size).to.equal(1);
      expect(await count('events', workspaceId)).to.equal(1);
      expect(await count('contacts', workspaceId)).to.equal(1);
    });
  });

  describe('errors', () => {
    it('answers 404 for an unknown contactId and stores nothing', async () => {
      const { admin, base, workspaceId } = await workspace();
      expectProblem(await admin.post(`${base}/events`, { type: 'x', contactId: 'ct_unknown' }), 404);
      expect(await count('events', workspaceId)).to.equal(0);
      expectProblem(await admin.get(`${base}/events?contactId=ct_unknown`), 404);
    });

    it('answers 400 for invalid bodies and queries, naming the field', async () => {
      const { admin, base } = await workspace();
      const future = new Date(Date.now() + 3_600_000).toISOString();
      const cases: [unknown, string][] = [
        [{}, 'body.type'],
        [{ type: '' }, 'body.type'],
        [{ type: 'x'.repeat(201) }, 'body.type'],
        [{ type: 'x', metadata: 'text' }, 'body.metadata'],
        [{ type: 'x', metadata: [1] }, 'body.metadata'],
        [{ type: 'x', metadata: { a: 'nul\u0000' } }, 'body.metadata.a'],
        [{ type: 'x', timestamp: future }, 'body.timestamp'],
        [{ type: 'x', timestamp: 'yesterday' }, 'body.timestamp'],
        [{ type: 'x', email: 'nope' }, 'body.email'],
        [{ type: 'x', pageUrl: 'u'.repeat(2049) }, 'body.pageUrl'],
      ];
      for (const [body, path] of cases) {
        const problem = expectProblem(await admin.post(`${base}/events`, body), 400) as unknown as {
          errors: { path: string }[];
        };
        expect(
          problem.errors.map((error) => error.path),
          JSON.stringify(body),
        ).to.include(path);
      }
      expectProblem(await admin.get(`${base}/events?limit=201`), 400);
      expectProblem(await admin.get(`${base}/events?before=soon`), 400);
    });

    it('refuses a timestamp that names no instant with only that message', async () => {
      const { admin, base } = await workspace();
      const response = await admin.post(`${base}/events`, { type: 'x', timestamp: 'yesterday' });
      expectProblem(response, 400);
      expect(response.body.errors).to.deep.equal([
        { path: 'body.timestamp', message: 'must be an ISO 8601 timestamp' },
      ]);
    });

    it('accepts a timestamp up to 60 s ahead for clock skew, as the document says, and refuses later', async () => {
      const { admin, base } = await workspace();
      const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();
      const skewed = await admin.post(`${base}/events`, { type: 'x', timestamp: ahead(30_000) });
      expect(skewed.status, skewed.text).to.equal(201);
      const later = await admin.post(`${base}/events`, { type: 'x', timestamp: ahead(120_000) });
      expectProblem(later, 400);
      expect(later.body.errors).to.deep.equal([
        { path: 'body.timestamp', message: 'must not be in the future' },
      ]);
      const document = (await admin.get('/api/openapi')).body;
      const { description } = document.components.schemas.IngestEventRequest.properties.timestamp;
      expect(description).to.include('at most 60 seconds ahead').and.not.include('Past only');
    });
  });

  describe('security', () => {
    it('needs events:write to ingest and events:read to list', async () => {
      const { base, withScopes } = await workspace();
      const reader = await withScopes(['events:read']);
      const writer = await withScopes(['events:write']);
      expect(expectProblem(await reader.post(`${base}/events`, { type: 'x' }), 403).detail).to.include(
        'events:write',
      );
      expect(expectProblem(await writer.get(`${base}/events`), 403).detail).to.include('events:read');
      expect((await writer.post(`${base}/events`, { type: 'x' })).status).to.equal(201);
      expect((await reader.get(`${base}/events`)).body).to.have.length(1);
    });

    it("never reaches another workspace's contacts or events", async () => {
      const mine = await workspace();
      const theirs = await workspace();
      const contact = await createContact(theirs.admin, theirs.base, { email: 't@example.com' });
      expectProblem(await mine.admin.post(`${mine.base}/events`, { type: 'x', contactId: contact.id }), 404);
      expectProblem(await theirs.admin.get(`${mine.base}/events`), 404);
      expectProblem(await theirs.admin.post(`${mine.base}/events`, { type: 'x' }), 404);
      const event = await track(mine.admin, mine.base, { type: 'x', email: 't@example.com' });
      expect(event.contact.id).not.to.equal(contact.id);
    });
  });
});
