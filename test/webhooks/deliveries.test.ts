// The delivery log: pagination and its bounds, filters, and manual retry (202 with the new
// attempt's id; 409 for inbound; 404 for unknown or another workspace's).
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import {
  createContact,
  createEndpoint,
  subscribedWorkspace,
  useReceiver,
  waitForDeliveries,
  webhooksPath,
} from './support.ts';

describe('webhook deliveries', () => {
  const receiver = useReceiver();

  it('pages newest first as {data, page, limit, total} and filters by endpoint, success and event', async () => {
    receiver().answer = (request) => (request.path.endsWith('/bad') ? { status: 500 } : {});
    const { client, workspaceId } = await workspaceWithAdmin();
    const good = await createEndpoint(client, workspaceId, {
      url: receiver().url,
      events: ['contact.created'],
    });
    const bad = await createEndpoint(client, workspaceId, {
      url: `${receiver().url}/bad`,
      events: ['contact.created'],
    });
    for (let i = 0; i < 3; i++) await createContact(client, workspaceId);
    await waitForDeliveries(client, workspaceId, good.id, 3);
    await waitForDeliveries(client, workspaceId, bad.id, 9);
    const path = `${webhooksPath(workspaceId)}/deliveries`;

    const first = await client.get(`${path}?limit=5`);
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ page: 1, limit: 5, total: 12 });
    expect(first.body.data).to.have.length(5);
    const times = first.body.data.map((record: { createdAt: string }) => record.createdAt);
    expect(times).to.deep.equal([...times].sort().reverse());
    const third = await client.get(`${path}?limit=5&page=3`);
    expect(third.body.data).to.have.length(2);
    const ids = new Set([...first.body.data, ...third.body.data].map((record: { id: string }) => record.id));
    expect(ids.size).to.equal(7);

    const defaults = await client.get(path);
    expect(defaults.body).to.include({ page: 1, limit: 50, total: 12 });
    const failed = await client.get(`${path}?success=false`);
    expect(failed.body.total).to.equal(9);
    expect(failed.body.data.every((record: { endpointId: string }) => record.endpointId === bad.id)).to.equal(
      true,
    );
    expect((await client.get(`${path}?success=true&endpointId=${good.id}`)).body.total).to.equal(3);
    expect((await client.get(`${path}?event=contact.created`)).body.total).to.equal(12);
    expect((await client.get(`${path}?event=segment.entered`)).body.total).to.equal(0);
  });

  it('refuses limits above 100, below 1, pages below 1 and non-boolean success with 400', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `${webhooksPath(workspaceId)}/deliveries`;
    expect((await client.get(`${path}?limit=100`)).status).to.equal(200);
    expectProblem(await client.get(`${path}?limit=101`), 400);
    expectProblem(await client.get(`${path}?limit=0`), 400);
    expectProblem(await client.get(`${path}?page=0`), 400);
    expectProblem(await client.get(`${path}?page=abc`), 400);
    expectProblem(await client.get(`${path}?page=1e20`), 400);
    const far = await client.get(`${path}?page=9007199254740991`);
    expect(far.status, far.text).to.equal(200);
    expect(far.body.data).to.deep.equal([]);
    expectProblem(await client.get(`${path}?success=yes`), 400);
    expectProblem(await client.get(`${path}?colour=red`), 400);
  });

  it('retries a failed outbound delivery as a manual attempt: 202 with the new delivery id', async () => {
    let healthy = false;
    receiver().answer = () => (healthy ? {} : { status: 500 });
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    const [first] = await waitForDeliveries(client, workspaceId, endpoint.id, 3);
    healthy = true;
    const retried = await client.post(`${webhooksPath(workspaceId)}/deliveries/${first.id}/retry`);
    expect(retried.status, retried.text).to.equal(202);
    expect(retried.body.deliveryId).to.match(/^dlv_/);
    const records = await waitForDeliveries(client, workspaceId, endpoint.id, 4);
    const manual = records.find((record) => record.id === retried.body.deliveryId);
    expect(manual).to.include({ success: true, trigger: 'manual', attempt: 4, messageId: first.messageId });
    const last = receiver().requests.at(-1);
    expect(last?.headers['x-webhook-delivery']).to.equal(retried.body.deliveryId);
    expect(last?.headers['webhook-id']).to.equal(first.messageId);
  });

  it('refuses to retry an inbound delivery (409), an unknown one (404), and lets only ADMINs retry', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const inbound = await createEndpoint(client, workspaceId, { direction: 'INBOUND', signed: false });
    const received = await new Client().post(`/api/webhooks/inbound/${inbound.id}`, {
      type: 'signup',
      email: 'in@example.com',
    });
    expect(received.status, received.text).to.equal(200);
    const path = `${webhooksPath(workspaceId)}/deliveries`;
    expectProblem(await client.post(`${path}/${received.body.deliveryId}/retry`), 409);
    expectProblem(await client.post(`${path}/dlv_unknown/retry`), 404);
    const member = await memberOf(client, workspaceId, 'MEMBER');
    expectProblem(await member.client.post(`${path}/${received.body.deliveryId}/retry`), 403);
    const other = await workspaceWithAdmin();
    expectProblem(
      await other.client.post(
        `${webhooksPath(other.workspaceId)}/deliveries/${received.body.deliveryId}/retry`,
      ),
      404,
    );
  });

  it('refuses to retry while the endpoint is disabled (409)', async () => {
    receiver().answer = () => ({ status: 500 });
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    const [first] = await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    await client.patch(`${webhooksPath(workspaceId)}/${endpoint.id}`, { active: false });
    expectProblem(await client.post(`${webhooksPath(workspaceId)}/deliveries/${first.id}/retry`), 409);
  });
});
