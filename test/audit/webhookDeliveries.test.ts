// The audit entries of webhook deliveries: the service disabling an endpoint (actor `system`) and
// an ADMIN retrying a delivery, against a real local receiver.
import { expect } from 'chai';
import { eventually } from '../support/factories.ts';
import { subscribedWorkspace, useReceiver, waitForDeliveries, webhooksPath } from '../webhooks/support.ts';
import { auditOf, expectUser, onlyEntry } from './support.ts';

describe('Audit log: webhook deliveries', () => {
  const receiver = useReceiver();

  it('records webhook.disabled by the system when an endpoint answers 410 Gone', async () => {
    receiver().answer = () => ({ status: 410 });
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    const entry = await eventually(async () => {
      const [found] = await auditOf(client, workspaceId, { action: 'webhook.disabled' });
      return found;
    });
    expect(entry.actor).to.deep.equal({ type: 'system', id: null, name: null });
    expect(entry.origin).to.deep.equal({ ip: null, userAgent: null });
    expect(entry.target).to.deep.equal({ type: 'webhook', id: endpoint.id });
    expect(entry.after.active).to.equal(false);
    expect(entry.after.disabledReason).to.contain('410 Gone');
  });

  it('records webhook.deliveryRetried by the ADMIN who retried', async () => {
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    const { user } = (await client.get('/api/auth/session')).body;
    const [first] = await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    const retried = await client.post(`${webhooksPath(workspaceId)}/deliveries/${first.id}/retry`);
    expect(retried.status, retried.text).to.be.oneOf([200, 201, 202]);
    const entry = await onlyEntry(client, workspaceId, 'webhook.deliveryRetried');
    expectUser(entry, user);
    expect(entry.target).to.deep.equal({ type: 'webhook', id: endpoint.id });
    expect(entry.after).to.include({ deliveryId: first.id, url: receiver().url });
  });
});
