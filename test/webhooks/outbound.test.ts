// Outbound delivery against real local receivers: signatures in both schemes, fan-out to
// subscribed endpoints only, retries, timeouts, redirects, Retry-After, 410, auto-disable,
// skipping on deactivation, and rotation. The test server retries on the schedule 0,1,2 s.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import { WEBHOOKS_CHANNEL } from '../../src/webhooks/deliveryQueries.ts';
import { eventually, workspaceWithAdmin } from '../support/factories.ts';
import { sql, testDb } from '../support/helpers.ts';
import {
  createContact,
  createEndpoint,
  subscribedWorkspace,
  useReceiver,
  waitForDeliveries,
  webhooksPath,
} from './support.ts';

const count = (query: ReturnType<typeof sql.unsafe>) =>
  testDb().oneFirst(sql.type(z.object({ n: z.number() }))`select (${query})::int as n`);

function queuedAttempts(endpointId: string) {
  return count(sql.unsafe`select count(*) from webhook_attempts where endpoint_id = ${endpointId}`);
}

/** Five days of failures, compressed: the endpoint's failure streak started six days ago. */
async function backdateFailureStreak(endpointId: string) {
  await testDb().query(sql.unsafe`
    update webhook_endpoints set failing_since = now() - interval '6 days' where id = ${endpointId}`);
}

function messagesOf(endpointId: string) {
  return count(sql.unsafe`select count(*) from webhook_messages where endpoint_id = ${endpointId}`);
}

describe('outbound webhooks', () => {
  const receiver = useReceiver();

  it('POSTs {event, timestamp, data} signed with hex HMAC and Standard Webhooks headers', async () => {
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url, 0);
    const contact = await createContact(client, workspaceId, 'signed@example.com');
    const [record] = await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    const [request] = receiver().requests;

    const body = JSON.parse(request.body);
    expect(body.event).to.equal('contact.created');
    expect(body.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.data).to.include({ contactId: contact.id, email: 'signed@example.com', firstName: 'Ada' });
    expect(request.headers['content-type']).to.equal('application/json');
    expect(request.headers['user-agent']).to.equal('Switchboard-Webhooks/0.1.0');
    expect(request.headers['x-webhook-event']).to.equal('contact.created');
    expect(request.headers['x-webhook-delivery']).to.equal(record.id);
    expect(request.headers['webhook-id']).to.equal(record.messageId);

    const hex = createHmac('sha256', endpoint.secret).update(request.body).digest('hex');
    expect(request.headers['x-webhook-signature']).to.equal(hex);
    const verified = new Webhook(endpoint.secret).verify(
      request.body,
      request.headers as Record<string, string>,
    );
    expect(verified).to.deep.equal(body);
    expect(() =>
      new Webhook(endpoint.secret).verify(`${request.body} `, request.headers as Record<string, string>),
    ).to.throw();

    expect(record).to.include({ success: true, responseStatus: 200, responseBody: 'ok', attempt: 1 });
    expect(record).to.include({ trigger: 'scheduled', direction: 'OUTBOUND', event: 'contact.created' });
    expect(record.url).to.equal(receiver().url);
  });

  it('fans out only to active OUTBOUND endpoints of the workspace subscribed to the type', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const other = await workspaceWithAdmin();
    const subscribed = await createEndpoint(client, workspaceId, {
      url: receiver().url,
      events: ['contact.created'],
    });
    const everything = await createEndpoint(client, workspaceId, { url: `${receiver().url}/all` });
    const elsewhere = await createEndpoint(client, workspaceId, {
      url: receiver().url,
      events: ['segment.entered'],
    });
    const inactive = await createEndpoint(client, workspaceId, { url: receiver().url, active: false });
    const foreign = await createEndpoint(other.client, other.workspaceId, { url: receiver().url });
    await createContact(client, workspaceId);
    await waitForDeliveries(client, workspaceId, subscribed.id, 1);
    await waitForDeliveries(client, workspaceId, everything.id, 1);
    // Fan-out of one event is one transaction: once any message exists, all of them do.
    expect(await messagesOf(elsewhere.id)).to.equal(0);
    expect(await messagesOf(inactive.id)).to.equal(0);
    expect(await messagesOf(foreign.id)).to.equal(0);
    expect(
      receiver()
        .requests.map((request) => request.path)
        .sort(),
    ).to.deep.equal(['/hooks', '/hooks/all']);
  });

  it('retries a 500 on the schedule and succeeds, with a stable webhook-id and identical bytes', async () => {
    receiver().answer = (_request, index) => (index === 0 ? { status: 500, body: 'boom' } : {});
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    const [first, second] = await waitForDeliveries(client, workspaceId, endpoint.id, 2);
    expect(first).to.include({
      success: false,
      responseStatus: 500,
      responseBody: 'boom',
      error: 'HTTP 500',
      attempt: 1,
    });
    expect(second).to.include({
      success: true,
      attempt: 2,
      trigger: 'scheduled',
      messageId: first.messageId,
    });
    const [one, two] = receiver().requests;
    expect(two.headers['webhook-id']).to.equal(one.headers['webhook-id']);
    expect(two.headers['x-webhook-delivery']).to.not.equal(one.headers['x-webhook-delivery']);
    expect(two.body).to.equal(one.body);
    expect(two.at - one.at, 'the second attempt waits about 1 s').to.be.at.least(850);
  });

  it('stops after the last scheduled attempt and marks the message failed', async () => {
    receiver().answer = () => ({ status: 503 });
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    const records = await eventually(async () => {
      const found = await waitForDeliveries(client, workspaceId, endpoint.id, 3);
      return (await queuedAttempts(endpoint.id)) === 0 ? found : null;
    }, 15_000);
    expect(records.map((record) => record.attempt)).to.deep.equal([1, 2, 3]);
    const status = await testDb().oneFirst(sql.type(z.object({ status: z.string() }))`
      select status from webhook_messages where endpoint_id = ${endpoint.id}`);
    expect(status).to.equal('failed');
  });

  it('counts a response slower than the timeout as a failure, then retries', async () => {
    receiver().answer = (_request, index) => (index === 0 ? { delayMs: 2600 } : {});
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    const [first, second] = await waitForDeliveries(client, workspaceId, endpoint.id, 2);
    expect(first.success).to.equal(false);
    expect(first.error).to.match(/^timeout/);
    expect(first.responseStatus).to.equal(null);
    expect(first.durationMs).to.be.within(1900, 3500);
    expect(second.success).to.equal(true);
  });

  it('does not follow redirects: a 302 is a failed attempt and the Location is never requested', async () => {
    receiver().answer = (_request, index) =>
      index === 0 ? { status: 302, headers: { location: `${receiver().url}/moved` } } : {};
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    const [first] = await waitForDeliveries(client, workspaceId, endpoint.id, 2);
    expect(first.success).to.equal(false);
    expect(first.error).to.match(/^redirect not followed: 302/);
    expect(receiver().requests.map((request) => request.path)).to.deep.equal(['/hooks', '/hooks']);
  });

  it('records a response body holding NUL characters, which PostgreSQL text cannot store', async () => {
    receiver().answer = () => ({ status: 500, body: 'bad\u0000byte' });
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    const [first] = await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    expect(first).to.include({ success: false, responseStatus: 500, responseBody: 'bad\uFFFDbyte' });
  });

  it('drops a queued attempt whose message is gone rather than lease it again and again', async () => {
    const { workspaceId, endpoint } = await subscribedWorkspace(receiver().url, 0);
    // What a replay queued as retention deleted its message leaves: no foreign key stops it (sql/0064).
    await testDb().query(sql.unsafe`
      insert into webhook_attempts (workspace_id, id, message_id, endpoint_id, attempt, trigger, due_at)
      values (${workspaceId}, ${`dlv_orphan_${endpoint.id}`}, 'msg_gone', ${endpoint.id}, 2, 'manual', now())`);
    await testDb().query(sql.unsafe`select pg_notify(${WEBHOOKS_CHANNEL}, '')`);
    await eventually(async () => (await queuedAttempts(endpoint.id)) === 0);
    expect(receiver().requests).to.have.length(0);
  });

  it('honours Retry-After when it asks for longer than the schedule', async () => {
    receiver().answer = (_request, index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '2' } } : {};
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    await waitForDeliveries(client, workspaceId, endpoint.id, 2);
    const [one, two] = receiver().requests;
    expect(two.at - one.at).to.be.at.least(1900);
  });

  it('disables the endpoint on 410 Gone and says why', async () => {
    receiver().answer = () => ({ status: 410 });
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    const [record] = await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    expect(record.error).to.contain('HTTP 410').and.contain('410 Gone');
    const [listed] = (await client.get(webhooksPath(workspaceId))).body;
    expect(listed.active).to.equal(false);
    expect(listed.disabledReason).to.contain('410 Gone');
    expect(await queuedAttempts(endpoint.id)).to.equal(0);
    await createContact(client, workspaceId);
    expect(await messagesOf(endpoint.id)).to.equal(1);
  });

  it('disables an endpoint that has only failed for WEBHOOK_DISABLE_AFTER_MS, with the reason', async () => {
    receiver().answer = () => ({ status: 500 });
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url, 0);
    await backdateFailureStreak(endpoint.id);
    await createContact(client, workspaceId);
    const [record] = await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    expect(record.error).to.match(
      /^HTTP 500; Disabled: every delivery failed since .* \(5 days or more\)\.$/,
    );
    const [listed] = (await client.get(webhooksPath(workspaceId))).body;
    expect(listed).to.include({ active: false });
    expect(listed.disabledReason).to.match(/^Disabled: every delivery failed since/);
    expect(await queuedAttempts(endpoint.id)).to.equal(0);
  });

  it('a success ends a failure streak, so an old streak does not disable the endpoint', async () => {
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url, 0);
    await backdateFailureStreak(endpoint.id);
    await createContact(client, workspaceId);
    await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    const streak = await testDb().oneFirst(sql.type(z.object({ f: z.string().nullable() }))`
      select failing_since as f from webhook_endpoints where id = ${endpoint.id}`);
    expect(streak).to.equal(null);
    expect((await client.get(webhooksPath(workspaceId))).body[0].active).to.equal(true);
  });

  it('records queued attempts as skipped when deactivated, and resumes when reactivated', async () => {
    receiver().answer = (_request, index) => (index === 0 ? { status: 500 } : {});
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    const path = `${webhooksPath(workspaceId)}/${endpoint.id}`;
    expect((await client.patch(path, { active: false })).status).to.equal(200);
    const [, skipped] = await waitForDeliveries(client, workspaceId, endpoint.id, 2);
    expect(skipped).to.include({ success: false, error: 'skipped: endpoint disabled', attempt: 2 });
    expect(receiver().requests).to.have.length(1);

    expect((await client.patch(path, { active: true })).status).to.equal(200);
    await createContact(client, workspaceId);
    const records = await waitForDeliveries(client, workspaceId, endpoint.id, 3);
    expect(records[2]).to.include({ success: true, attempt: 1 });
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url, 0);
    const rotated = await client.post(`${webhooksPath(workspaceId)}/${endpoint.id}/rotate-secret`);
    await createContact(client, workspaceId);
    await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    const [request] = receiver().requests;
    const headers = request.headers as Record<string, string>;
    expect(headers['webhook-signature'].split(' ')).to.have.length(2);
    expect(() => new Webhook(endpoint.secret).verify(request.body, headers)).to.not.throw();
    expect(() => new Webhook(rotated.body.secret).verify(request.body, headers)).to.not.throw();
    const hex = createHmac('sha256', rotated.body.secret).update(request.body).digest('hex');
    expect(headers['x-webhook-signature']).to.equal(hex);
  });
});
