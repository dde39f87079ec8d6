// Attacks on the inbound receiver: a signature detached from its body (a path spelt with capitals
// skipped the raw-body capture), hex-signed requests replayed under new dedupe headers, and the
// per-endpoint choice of signature scheme that shuts replays out.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { UnauthorizedError } from '../../src/core/errors.ts';
import { receiveInbound } from '../../src/webhooks/inbound.ts';
import { Client, type TestResponse } from '../support/client.ts';
import { expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { sql, testDb } from '../support/helpers.ts';
import { server } from '../support/server.ts';
import { createEndpoint, deliveries, webhooksPath } from './support.ts';

const anyone = new Client();

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return anyone.request('POST', path, { body, headers: { 'content-type': 'application/json', ...headers } });
}

const inbound = (endpointId: string) => `/api/webhooks/inbound/${endpointId}`;
const hexOf = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

function standardHeaders(secret: string, id: string, body: string, at = new Date()) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

async function inboundSetup(body: Record<string, unknown> = {}) {
  const { client, workspaceId } = await workspaceWithAdmin();
  const endpoint = await createEndpoint(client, workspaceId, { direction: 'INBOUND', ...body });
  const events = async () => (await client.get(`/api/workspaces/${workspaceId}/events`)).body as unknown[];
  const contacts = async () =>
    (await client.get(`/api/workspaces/${workspaceId}/contacts`)).body.data as { email: string }[];
  return { client, workspaceId, endpoint, events, contacts };
}

describe('inbound webhook security', () => {
  describe('the signature is verified against the exact bytes received', () => {
    for (const path of ['/api/Webhooks/inbound/', '/api/WEBHOOKS/INBOUND/', '/api/webhooks/Inbound/']) {
      it(`refuses the HMAC of an empty body at ${path}{id} and creates nothing`, async () => {
        const { endpoint, events, contacts } = await inboundSetup();
        const body = JSON.stringify({ type: 'purchase.completed', email: 'forged@example.com' });
        const forged = await post(`${path}${endpoint.id}`, body, {
          'x-webhook-signature': hexOf(endpoint.secret, ''),
        });
        expectProblem(forged, 401);
        expect(await events()).to.have.length(0);
        expect(await contacts()).to.have.length(0);
      });
    }

    it('accepts a correct signature whatever the path’s capitals: the route and the capture agree', async () => {
      const { endpoint, events } = await inboundSetup();
      const body = JSON.stringify({ type: 'signup', email: 'caps@example.com' });
      const response = await post(`/api/Webhooks/Inbound/${endpoint.id}`, body, {
        'x-webhook-signature': hexOf(endpoint.secret, body),
      });
      expect(response.status, response.text).to.equal(200);
      expect(await events()).to.have.length(1);
    });

    it('never verifies a request whose raw body was not captured', async () => {
      const { endpoint, events } = await inboundSetup();
      const headers: Record<string, string> = { 'x-webhook-signature': hexOf(endpoint.secret, '') };
      const attempt = receiveInbound(server().context, {
        endpointId: endpoint.id,
        path: inbound(endpoint.id),
        rawBody: null,
        body: { type: 'signup' },
        header: (name) => headers[name],
      });
      const error = await attempt.then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(UnauthorizedError);
      expect(await events()).to.have.length(0);
    });
  });

  describe('hex-signed replays', () => {
    it('records a replay of the same body under new Idempotency-Keys as a duplicate and creates one event', async () => {
      const { client, workspaceId, endpoint, events } = await inboundSetup();
      const body = JSON.stringify({ type: 'purchase.completed', email: 'once@example.com' });
      const signature = { 'x-webhook-signature': hexOf(endpoint.secret, body) };
      const answers: TestResponse[] = [];
      for (const key of ['a', 'b', 'c', 'd'])
        answers.push(await post(inbound(endpoint.id), body, { ...signature, 'idempotency-key': key }));
      answers.push(await post(inbound(endpoint.id), body, { ...signature, 'idempotency-key': 'b' }));
      for (const answer of answers) expect(answer.status, answer.text).to.equal(200);
      expect(new Set(answers.map((answer) => answer.body.deliveryId)).size).to.equal(1);
      expect(await events()).to.have.length(1);
      const records = await deliveries(client, workspaceId, `&endpointId=${endpoint.id}`);
      expect(records).to.have.length(5);
      const duplicates = records.filter((record) => record.error?.startsWith('duplicate of '));
      expect(duplicates).to.have.length(4);
      expect(duplicates.every((record) => record.error?.includes(answers[0].body.deliveryId))).to.equal(true);
    });

    it('lets only one of concurrent replays create an event', async () => {
      const { endpoint, events } = await inboundSetup();
      const body = JSON.stringify({ type: 'signup', email: 'race@example.com' });
      const signature = { 'x-webhook-signature': hexOf(endpoint.secret, body) };
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          post(inbound(endpoint.id), body, { ...signature, 'idempotency-key': `k${i}` }),
        ),
      );
      for (const answer of answers) expect(answer.status, answer.text).to.equal(200);
      expect(await events()).to.have.length(1);
    });

    it('accepts the same body again once the replay window has passed, and other bodies at once', async () => {
      const { endpoint, events } = await inboundSetup();
      const body = JSON.stringify({ type: 'signup', email: 'later@example.com' });
      const signature = { 'x-webhook-signature': hexOf(endpoint.secret, body) };
      expect((await post(inbound(endpoint.id), body, signature)).status).to.equal(200);
      const other = JSON.stringify({ type: 'signup', email: 'other@example.com' });
      expect(
        (await post(inbound(endpoint.id), other, { 'x-webhook-signature': hexOf(endpoint.secret, other) }))
          .status,
      ).to.equal(200);
      expect(await events()).to.have.length(2);
      const window = server().context.config.WEBHOOK_INBOUND_REPLAY_WINDOW_MS;
      await testDb().query(sql.unsafe`
        update webhook_deliveries set created_at = now() - ${window + 60_000} * interval '1 millisecond'
        where endpoint_id = ${endpoint.id}`);
      expect((await post(inbound(endpoint.id), body, signature)).status).to.equal(200);
      expect(await events()).to.have.length(3);
    });
  });

  describe('signatureScheme', () => {
    it('defaults to either, so the hex X-Webhook-Signature works on an endpoint made with defaults', async () => {
      const { client, workspaceId, endpoint } = await inboundSetup();
      expect(endpoint).to.include({ signatureScheme: 'either' });
      const listed = await client.get(webhooksPath(workspaceId));
      expect(listed.body[0].signatureScheme).to.equal('either');
      const body = JSON.stringify({ type: 'signup' });
      expect(
        (await post(inbound(endpoint.id), body, { 'x-webhook-signature': hexOf(endpoint.secret, body) }))
          .status,
      ).to.equal(200);
    });

    it('standard refuses a hex-signed request (replayable) and accepts a timestamped one once per id', async () => {
      const { client, workspaceId, endpoint, events } = await inboundSetup({ signatureScheme: 'standard' });
      expect(endpoint).to.include({ signatureScheme: 'standard' });
      const body = JSON.stringify({ type: 'signup', email: 'std@example.com' });
      const hex = await post(inbound(endpoint.id), body, {
        'x-webhook-signature': hexOf(endpoint.secret, body),
      });
      expect(expectProblem(hex, 401).detail).to.contain('Standard Webhooks');
      const stale = new Date(Date.now() - 6 * 60_000);
      expectProblem(
        await post(inbound(endpoint.id), body, standardHeaders(endpoint.secret, 'msg_old', body, stale)),
        401,
      );
      const signed = standardHeaders(endpoint.secret, 'msg_1', body);
      const first = await post(inbound(endpoint.id), body, signed);
      expect(first.status, first.text).to.equal(200);
      const replay = await post(inbound(endpoint.id), body, { ...signed, 'idempotency-key': 'new' });
      expect(replay.body).to.deep.equal(first.body);
      expect(await events()).to.have.length(1);
      const records = await deliveries(client, workspaceId, `&endpointId=${endpoint.id}`);
      expect(records.map((record) => record.responseStatus).sort()).to.deep.equal([200, 401, 401]);
    });

    it('can be changed with PATCH: hex refuses Standard Webhooks signatures', async () => {
      const { client, workspaceId, endpoint } = await inboundSetup();
      const changed = await client.patch(`${webhooksPath(workspaceId)}/${endpoint.id}`, {
        signatureScheme: 'hex',
      });
      expect(changed.status, changed.text).to.equal(200);
      expect(changed.body.signatureScheme).to.equal('hex');
      const body = JSON.stringify({ type: 'signup' });
      expectProblem(
        await post(inbound(endpoint.id), body, standardHeaders(endpoint.secret, 'msg_h', body)),
        401,
      );
    });

    it('is refused with 400 for OUTBOUND endpoints and for values it does not know', async () => {
      const { client, workspaceId, endpoint } = await inboundSetup();
      const outbound = await client.post(webhooksPath(workspaceId), {
        url: 'https://example.com/hooks',
        signatureScheme: 'standard',
      });
      expect(expectProblem(outbound, 400).detail).to.be.a('string');
      expect(outbound.body.errors[0].path).to.equal('body.signatureScheme');
      const made = await createEndpoint(client, workspaceId, { url: 'https://example.com/hooks' });
      expect(made).to.include({ signatureScheme: null });
      const patched = await client.patch(`${webhooksPath(workspaceId)}/${made.id}`, {
        signatureScheme: 'hex',
      });
      expect(expectProblem(patched, 400)).to.deep.include({
        errors: [{ path: 'body.signatureScheme', message: 'applies to INBOUND endpoints only' }],
      });
      const unknown = await client.patch(`${webhooksPath(workspaceId)}/${endpoint.id}`, {
        signatureScheme: 'none',
      });
      expect(expectProblem(unknown, 400)).to.have.nested.property('errors[0].path', 'body.signatureScheme');
    });
  });
});
