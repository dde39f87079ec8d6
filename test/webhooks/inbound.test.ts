// Inbound receipt: signatures (hex and Standard Webhooks, good, bad, missing), unsigned
// endpoints, 404s, payload validation, the events filter, dedupe, and a record of every receipt.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { Client } from '../support/client.ts';
import { expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { createEndpoint, deliveries, webhooksPath } from './support.ts';

const anyone = new Client();

function post(endpointId: string, body: string, headers: Record<string, string> = {}) {
  return anyone.request('POST', `/api/webhooks/inbound/${endpointId}`, {
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

const hexOf = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

async function inboundSetup(body: Record<string, unknown> = {}) {
  const { client, workspaceId } = await workspaceWithAdmin();
  const endpoint = await createEndpoint(client, workspaceId, { direction: 'INBOUND', ...body });
  return { client, workspaceId, endpoint };
}

describe('inbound webhooks', () => {
  it('accepts a hex-signed payload, creates the contact and the event, and records the receipt', async () => {
    const { client, workspaceId, endpoint } = await inboundSetup();
    const body = JSON.stringify({
      type: 'purchase.completed',
      email: 'buyer@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
      phone: '+15550100',
      metadata: { amount: 42 },
    });
    const response = await post(endpoint.id, body, { 'x-webhook-signature': hexOf(endpoint.secret, body) });
    expect(response.status, response.text).to.equal(200);
    expect(response.body.received).to.equal(true);
    expect(response.body.deliveryId).to.match(/^dlv_/);

    const events = await client.get(`/api/workspaces/${workspaceId}/events?type=purchase.completed`);
    expect(events.body).to.have.length(1);
    expect(events.body[0].metadata).to.deep.equal({ amount: 42 });
    expect(events.body[0].contact).to.include({
      email: 'buyer@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
    });

    const [record] = await deliveries(client, workspaceId, `&endpointId=${endpoint.id}`);
    expect(record).to.include({
      id: response.body.deliveryId,
      direction: 'INBOUND',
      event: 'purchase.completed',
      success: true,
      responseStatus: 200,
      messageId: null,
      trigger: null,
    });
  });

  it('accepts a valid Standard Webhooks signature instead', async () => {
    const { endpoint } = await inboundSetup();
    const body = JSON.stringify({ type: 'signup', email: 'std@example.com' });
    // One instant for both: read twice, a second boundary between them made the header name
    // another second than the one signed.
    const signedAt = new Date();
    const signature = new Webhook(endpoint.secret).sign('msg_std_1', signedAt, body);
    const timestamp = String(Math.floor(signedAt.getTime() / 1000));
    const response = await post(endpoint.id, body, {
      'webhook-id': 'msg_std_1',
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    });
    expect(response.status, response.text).to.equal(200);
  });

  it('answers 401 for a missing, wrong, or stale signature, and records each', async () => {
    const { client, workspaceId, endpoint } = await inboundSetup();
    const body = JSON.stringify({ type: 'signup', email: 'nope@example.com' });
    expectProblem(await post(endpoint.id, body), 401);
    expectProblem(await post(endpoint.id, body, { 'x-webhook-signature': hexOf('whsec_wrong', body) }), 401);
    expectProblem(
      await post(endpoint.id, `${body} `, { 'x-webhook-signature': hexOf(endpoint.secret, body) }),
      401,
    );
    const old = new Date(Date.now() - 10 * 60_000);
    expectProblem(
      await post(endpoint.id, body, {
        'webhook-id': 'msg_old',
        'webhook-timestamp': String(Math.floor(old.getTime() / 1000)),
        'webhook-signature': new Webhook(endpoint.secret).sign('msg_old', old, body),
      }),
      401,
    );
    const records = await deliveries(client, workspaceId, `&endpointId=${endpoint.id}`);
    expect(records).to.have.length(4);
    expect(records.every((record) => !record.success && record.responseStatus === 401)).to.equal(true);
    const events = await client.get(`/api/workspaces/${workspaceId}/events`);
    expect(events.body).to.have.length(0);
  });

  it('accepts the previous secret for a day after a rotation', async () => {
    const { client, workspaceId, endpoint } = await inboundSetup();
    const rotated = await client.post(`${webhooksPath(workspaceId)}/${endpoint.id}/rotate-secret`);
    const body = JSON.stringify({ type: 'signup', email: 'rot@example.com' });
    expect(
      (await post(endpoint.id, body, { 'x-webhook-signature': hexOf(endpoint.secret, body) })).status,
    ).to.equal(200);
    const again = JSON.stringify({ type: 'signup', email: 'rot2@example.com' });
    expect(
      (await post(endpoint.id, again, { 'x-webhook-signature': hexOf(rotated.body.secret, again) })).status,
    ).to.equal(200);
  });

  it('accepts unsigned requests at an endpoint created without a secret', async () => {
    const { endpoint } = await inboundSetup({ signed: false });
    expect(endpoint.secret).to.equal(null);
    const response = await post(endpoint.id, JSON.stringify({ type: 'signup', email: 'open@example.com' }));
    expect(response.status, response.text).to.equal(200);
  });

  it('answers 404 for unknown, OUTBOUND and inactive endpoints', async () => {
    const { client, workspaceId, endpoint } = await inboundSetup({ signed: false });
    const body = JSON.stringify({ type: 'signup' });
    expectProblem(await post('whe_01ZZZZZZZZZZZZZZZZZZZZZZZZ', body), 404);
    const outbound = await createEndpoint(client, workspaceId, { url: 'https://example.com/x' });
    expectProblem(await post(outbound.id, body), 404);
    await client.patch(`${webhooksPath(workspaceId)}/${endpoint.id}`, { active: false });
    expectProblem(await post(endpoint.id, body), 404);
    const [record] = await deliveries(client, workspaceId, `&endpointId=${endpoint.id}`);
    expect(record).to.include({ success: false, responseStatus: 404, direction: 'INBOUND' });
  });

  it('answers 400 for invalid payloads and types outside the endpoint events, recording the error', async () => {
    const { client, workspaceId, endpoint } = await inboundSetup({ signed: false, events: ['signup'] });
    const problem = expectProblem(
      await post(endpoint.id, JSON.stringify({ email: 'x@example.com' })),
      400,
    ) as unknown as {
      errors: { path: string }[];
    };
    expect(problem.errors[0].path).to.equal('body.type');
    expectProblem(await post(endpoint.id, JSON.stringify({ type: 'signup', metadata: 'flat' })), 400);
    expectProblem(await post(endpoint.id, JSON.stringify({ type: 42 })), 400);
    expectProblem(await post(endpoint.id, JSON.stringify({ type: 'signup', email: 'not an email' })), 400);
    expectProblem(await post(endpoint.id, JSON.stringify(['signup'])), 400);
    expectProblem(await post(endpoint.id, JSON.stringify({ type: 'signup', contactId: 'ct_missing' })), 400);
    const refused = expectProblem(await post(endpoint.id, JSON.stringify({ type: 'purchase' })), 400);
    expect(refused.detail).to.be.a('string');
    const records = await deliveries(client, workspaceId, `&endpointId=${endpoint.id}`);
    expect(records).to.have.length(7);
    expect(records[0]).to.include({ event: 'purchase', success: false, responseStatus: 400 });
    expect(records[0].error).to.contain('accepts only signup');
  });

  it('records a malformed JSON body at a known endpoint as a failed receipt (400)', async () => {
    const { client, workspaceId, endpoint } = await inboundSetup();
    const body = '{"type": "signup",';
    const problem = expectProblem(
      await post(endpoint.id, body, { 'x-webhook-signature': hexOf(endpoint.secret, body) }),
      400,
    );
    expect(problem.detail).to.contain('not valid JSON');
    const [record] = await deliveries(client, workspaceId, `&endpointId=${endpoint.id}`);
    expect(record).to.include({ direction: 'INBOUND', success: false, responseStatus: 400, event: null });
    expect(record.error).to.contain('not valid JSON');
    // Unknown endpoints still get 404, malformed body or not.
    expectProblem(await post('whe_01JD0000000000000000000000', body), 404);
  });

  it('answers 413 for bodies over 1 MB and records the refused receipt: status, size, no body', async () => {
    const { client, workspaceId, endpoint } = await inboundSetup({ signed: false });
    const huge = JSON.stringify({ type: 'signup', metadata: { blob: 'x'.repeat(1_100_000) } });
    expectProblem(await post(endpoint.id, huge), 413);
    const [record] = await deliveries(client, workspaceId);
    expect(record).to.include({
      direction: 'INBOUND',
      endpointId: endpoint.id,
      success: false,
      responseStatus: 413,
      requestBytes: Buffer.byteLength(huge),
      event: null,
    });
    expect(record.error).to.contain('over the 1 MB limit');
    expect(JSON.stringify(record)).not.to.contain('xxxxxxxx');
    // Nothing else: no event, and an unknown endpoint still answers 413 with no record anywhere.
    expect((await client.get(`/api/workspaces/${workspaceId}/events`)).body).to.have.length(0);
    expectProblem(await post('whe_01JD0000000000000000000000', huge), 413);
    // The connection stays usable: the next receipt at the endpoint is processed as usual.
    expect((await post(endpoint.id, JSON.stringify({ type: 'signup' }))).status).to.equal(200);
  });

  it('returns the first result for a repeated webhook-id or Idempotency-Key and creates nothing new', async () => {
    const { client, workspaceId, endpoint } = await inboundSetup();
    const body = JSON.stringify({ type: 'signup', email: 'dupe@example.com' });
    const signature = { 'x-webhook-signature': hexOf(endpoint.secret, body) };
    const first = await post(endpoint.id, body, { ...signature, 'idempotency-key': 'order-1' });
    const repeat = await post(endpoint.id, body, { ...signature, 'idempotency-key': 'order-1' });
    expect(repeat.status).to.equal(200);
    expect(repeat.body).to.deep.equal(first.body);

    const timestamp = new Date();
    const std = {
      'webhook-id': 'msg_dupe',
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': new Webhook(endpoint.secret).sign('msg_dupe', timestamp, body),
    };
    const [a, b] = await Promise.all([post(endpoint.id, body, std), post(endpoint.id, body, std)]);
    expect(a.status, a.text).to.equal(200);
    expect(b.body.deliveryId).to.equal(a.body.deliveryId);

    const records = await deliveries(client, workspaceId, `&endpointId=${endpoint.id}`);
    expect(records).to.have.length(2);
    const events = await client.get(`/api/workspaces/${workspaceId}/events?type=signup`);
    expect(events.body).to.have.length(2);
  });

  it('retries a receipt that failed: a repeated id after a 400 is processed again', async () => {
    const { endpoint } = await inboundSetup({ signed: false });
    const bad = await post(endpoint.id, JSON.stringify({ type: '' }), { 'idempotency-key': 'k-1' });
    expect(bad.status).to.equal(400);
    const good = await post(endpoint.id, JSON.stringify({ type: 'signup' }), { 'idempotency-key': 'k-1' });
    expect(good.status, good.text).to.equal(200);
  });
});
