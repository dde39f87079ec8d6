// Webhook endpoint management: create (secret once), list with counts, update, rotate, delete
// with its deliveries; validation; who may do what; the event types in the OpenAPI document.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { EVENT_TYPES as OUTGOING_EVENT_TYPES } from '../../src/webhooks/eventSchemas.ts';
import { Client } from '../support/client.ts';
import { expectProblem, keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { server } from '../support/server.ts';
import { createContact, createEndpoint, startReceiver, waitForDeliveries, webhooksPath } from './support.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe('webhook endpoints', () => {
  describe('happy path', () => {
    it('creates an OUTBOUND endpoint, active by default, with a whsec_ secret shown once', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      const created = await client.post(webhooksPath(workspaceId), {
        name: 'CRM',
        url: 'https://example.com/hooks',
        events: ['contact.created', 'contact.score_changed'],
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({
        name: 'CRM',
        url: 'https://example.com/hooks',
        direction: 'OUTBOUND',
        active: true,
      });
      expect(created.body.id).to.match(/^whe_/);
      expect(created.body.events).to.deep.equal(['contact.created', 'contact.score_changed']);
      expect(created.body.secret).to.match(SECRET);
      expect(Buffer.from(created.body.secret.slice(6), 'base64')).to.have.length(32);
      expect(created.body.createdAt).to.match(ISO_MS);

      const listed = await client.get(webhooksPath(workspaceId));
      expect(listed.status).to.equal(200);
      expect(listed.body).to.have.length(1);
      expect(listed.body[0]).to.not.have.property('secret');
      expect(listed.text).to.not.contain(created.body.secret);
      expect(listed.body[0]._count).to.deep.equal({ deliveries: 0 });
    });

    it('creates an INBOUND endpoint without url, with a secret, and names both kinds by default', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      const inbound = await createEndpoint(client, workspaceId, {
        direction: 'INBOUND',
        events: ['purchase.completed'],
      });
      expect(inbound).to.include({ url: null, name: 'Inbound endpoint', direction: 'INBOUND' });
      expect(inbound.secret).to.match(SECRET);
      const outbound = await createEndpoint(client, workspaceId, { url: 'https://hooks.example.org/x' });
      expect(outbound).to.include({ name: 'hooks.example.org' });
      expect(outbound.events).to.deep.equal([]);
    });

    it('updates name, url, events and active, and answers with the endpoint', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      const endpoint = await createEndpoint(client, workspaceId, { url: 'https://example.com/a' });
      const patched = await client.patch(`${webhooksPath(workspaceId)}/${endpoint.id}`, {
        name: 'Renamed',
        url: 'https://example.com/b',
        events: ['segment.entered'],
        active: false,
      });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body).to.include({ name: 'Renamed', url: 'https://example.com/b', active: false });
      expect(patched.body.events).to.deep.equal(['segment.entered']);
      expect(patched.body).to.not.have.property('secret');
    });

    it('rotates the secret: a new one once, the old one kept for 24 hours', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      const endpoint = await createEndpoint(client, workspaceId, { url: 'https://example.com/a' });
      const rotated = await client.post(`${webhooksPath(workspaceId)}/${endpoint.id}/rotate-secret`);
      expect(rotated.status, rotated.text).to.equal(200);
      expect(rotated.body.secret).to.match(SECRET).and.not.equal(endpoint.secret);
      const grace = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
      expect(grace).to.be.within(24 * 3600_000 - 60_000, 24 * 3600_000 + 1000);
    });

    it('deletes an endpoint and every delivery record of it', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      const receiver = await startReceiver();
      try {
        const endpoint = await createEndpoint(client, workspaceId, {
          url: receiver.url,
          events: ['contact.created'],
        });
        await createContact(client, workspaceId);
        await waitForDeliveries(client, workspaceId, endpoint.id, 1);
        const listed = await client.get(webhooksPath(workspaceId));
        expect(listed.body[0]._count.deliveries).to.equal(1);

        const deleted = await client.delete(`${webhooksPath(workspaceId)}/${endpoint.id}`);
        expect(deleted.status).to.equal(204);
        const after = await client.get(`${webhooksPath(workspaceId)}/deliveries?endpointId=${endpoint.id}`);
        expect(after.body.total).to.equal(0);
        // No foreign key cascades these any more (sql/0058): nothing of the endpoint may stay behind.
        const left = await server().context.db.oneFirst(sql.type(z.object({ rows: z.number() }))`
          select (select count(*) from webhook_messages where endpoint_id = ${endpoint.id})
               + (select count(*) from webhook_attempts where endpoint_id = ${endpoint.id})
               + (select count(*) from webhook_deliveries where endpoint_id = ${endpoint.id}) as rows`);
        expect(left).to.equal(0);
        expectProblem(await client.delete(`${webhooksPath(workspaceId)}/${endpoint.id}`), 404);
      } finally {
        await receiver.close();
      }
    });
  });

  describe('deletion with a retry queued', () => {
    it('deletes the queued attempts of its messages too', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      // 429 with Retry-After: an hour: the retry waits in the queue while the endpoint is deleted.
      const receiver = await startReceiver(() => ({ status: 429, headers: { 'retry-after': '3600' } }));
      try {
        const endpoint = await createEndpoint(client, workspaceId, { url: receiver.url });
        await createContact(client, workspaceId);
        await waitForDeliveries(client, workspaceId, endpoint.id, 1);
        const queued = () =>
          server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
            select count(*)::int as n from webhook_attempts where endpoint_id = ${endpoint.id}`);
        expect(await queued()).to.equal(1);

        const deleted = await client.delete(`${webhooksPath(workspaceId)}/${endpoint.id}`);
        expect(deleted.status).to.equal(204);
        // No foreign key cascades the attempts from their messages any more (sql/0064).
        expect(await queued()).to.equal(0);
      } finally {
        await receiver.close();
      }
    });
  });

  describe('errors', () => {
    it('refuses unknown event types, names over 100 characters, and bad URLs with 400', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      const path = webhooksPath(workspaceId);
      const unknownType = expectProblem(
        await client.post(path, {
          url: 'https://example.com',
          events: ['contact.created', 'contact.exploded'],
        }),
        400,
      ) as unknown as { errors: { path: string; message: string }[] };
      expect(unknownType.errors[0].path).to.equal('body.events.1');
      expectProblem(await client.post(path, { url: 'https://example.com', name: 'n'.repeat(101) }), 400);
      expectProblem(await client.post(path, { url: 'ftp://example.com/x' }), 400);
      expectProblem(await client.post(path, { url: '/relative/path' }), 400);
      expectProblem(await client.post(path, { url: 'https://user:pw@example.com/' }), 400);
      expectProblem(await client.post(path, { direction: 'OUTBOUND' }), 400);
      expectProblem(await client.post(path, { direction: 'INBOUND', url: 'https://example.com' }), 400);
      expectProblem(await client.post(path, { direction: 'SIDEWAYS', url: 'https://example.com' }), 400);
      expectProblem(await client.post(path, { url: 'https://example.com', events: 'contact.created' }), 400);
    });

    it('refuses an empty PATCH, unknown types on PATCH, and a url on an INBOUND endpoint', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      const outbound = await createEndpoint(client, workspaceId, { url: 'https://example.com/a' });
      const inbound = await createEndpoint(client, workspaceId, { direction: 'INBOUND' });
      const path = webhooksPath(workspaceId);
      expectProblem(await client.patch(`${path}/${outbound.id}`, {}), 400);
      expectProblem(await client.patch(`${path}/${outbound.id}`, { events: ['nope'] }), 400);
      expectProblem(await client.patch(`${path}/${outbound.id}`, { active: 'yes' }), 400);
      expectProblem(await client.patch(`${path}/${inbound.id}`, { url: 'https://example.com' }), 400);
      expectProblem(await client.patch(`${path}/whe_unknown`, { name: 'x' }), 404);
      expectProblem(await client.post(`${path}/whe_unknown/rotate-secret`), 404);
    });
  });

  describe('security', () => {
    it('lets members read but only ADMINs change; keys need webhooks:read / webhooks:write', async () => {
      const { client: admin, workspaceId } = await workspaceWithAdmin();
      const endpoint = await createEndpoint(admin, workspaceId, { url: 'https://example.com/a' });
      const path = webhooksPath(workspaceId);
      const member = await memberOf(admin, workspaceId, 'MEMBER');
      expect((await member.client.get(path)).status).to.equal(200);
      expect((await member.client.get(`${path}/deliveries`)).status).to.equal(200);
      expectProblem(await member.client.post(path, { url: 'https://example.com' }), 403);
      expectProblem(await member.client.patch(`${path}/${endpoint.id}`, { active: false }), 403);
      expectProblem(await member.client.delete(`${path}/${endpoint.id}`), 403);
      expectProblem(await member.client.post(`${path}/${endpoint.id}/rotate-secret`), 403);

      const reader = await keyClient(admin, workspaceId, ['webhooks:read']);
      expect((await reader.client.get(path)).status).to.equal(200);
      expectProblem(await reader.client.post(path, { url: 'https://example.com' }), 403);
      const writer = await keyClient(admin, workspaceId, ['webhooks:write']);
      expect((await writer.client.post(path, { url: 'https://example.com' })).status).to.equal(201);
      const other = await keyClient(admin, workspaceId, ['contacts:read']);
      expectProblem(await other.client.get(path), 403);
      expectProblem(await new Client().get(path), 401);
    });

    it("treats another workspace's endpoints as not found", async () => {
      const first = await workspaceWithAdmin();
      const second = await workspaceWithAdmin();
      const endpoint = await createEndpoint(first.client, first.workspaceId, {
        url: 'https://example.com/a',
      });
      const path = webhooksPath(second.workspaceId);
      expectProblem(await second.client.patch(`${path}/${endpoint.id}`, { name: 'mine' }), 404);
      expectProblem(await second.client.delete(`${path}/${endpoint.id}`), 404);
      expectProblem(await second.client.post(`${path}/${endpoint.id}/rotate-secret`), 404);
      expectProblem(await second.client.get(webhooksPath(first.workspaceId)), 404);
    });
  });

  describe('OpenAPI', () => {
    it(`publishes the ${OUTGOING_EVENT_TYPES.length} event types as an enum and each data schema under webhooks`, async () => {
      const document = (await new Client().get('/api/openapi')).body;
      expect(document.components.schemas.WebhookEventType.enum).to.have.members([...OUTGOING_EVENT_TYPES]);
      expect(Object.keys(document.webhooks)).to.have.members([...OUTGOING_EVENT_TYPES]);
      const scoreData = document.components.schemas.ContactScoreChangedData;
      expect(scoreData.properties).to.have.keys('contactId', 'previousScore', 'score', 'ruleId');
      const body =
        document.webhooks['contact.score_changed'].post.requestBody.content['application/json'].schema;
      expect(body.properties.data.$ref).to.equal('#/components/schemas/ContactScoreChangedData');
      expect(document.paths['/api/webhooks/inbound/{endpointId}'].post).to.be.an('object');
    });
  });
});
