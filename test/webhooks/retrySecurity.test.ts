// Retrying after the endpoint's URL changed: a `webhooks:write` key could point the endpoint at
// its own server and retry old deliveries, receiving stored past payloads (contact data). Only a
// signed-in ADMIN may send an old delivery to a new URL; the attempt is signed afresh and its
// record names the URL it went to.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { eventually, expectProblem, keyClient } from '../support/factories.ts';
import { startReceiver, subscribedWorkspace, waitForDeliveries, webhooksPath } from './support.ts';

describe('webhook retry after a URL change', () => {
  it('refuses a webhooks:write key (403) and sends nothing to the new URL; a signed-in ADMIN may', async () => {
    const original = await startReceiver();
    const attacker = await startReceiver();
    try {
      const { client: admin, workspaceId, endpoint } = await subscribedWorkspace(original.url);
      const [past] = await waitForDeliveries(admin, workspaceId, endpoint.id, 1);
      expect(past).to.include({ success: true, url: original.url });
      const { client: key } = await keyClient(admin, workspaceId, ['webhooks:read', 'webhooks:write']);
      const base = webhooksPath(workspaceId);

      // Before any change the key may retry: the payload goes where it already went.
      expect((await key.post(`${base}/deliveries/${past.id}/retry`)).status).to.equal(202);
      await eventually(async () => original.requests.length >= 2);

      const moved = await key.patch(`${base}/${endpoint.id}`, { url: attacker.url });
      expect(moved.status, moved.text).to.equal(200);
      const refused = expectProblem(await key.post(`${base}/deliveries/${past.id}/retry`), 403);
      expect(refused.detail).to.contain('URL changed');
      expect(attacker.requests).to.have.length(0);

      const retried = await admin.post(`${base}/deliveries/${past.id}/retry`);
      expect(retried.status, retried.text).to.equal(202);
      const records = await waitForDeliveries(admin, workspaceId, endpoint.id, 3);
      const resent = records.find((record) => record.id === retried.body.deliveryId);
      expect(resent).to.include({ success: true, url: attacker.url, messageId: past.messageId });
      const [received] = attacker.requests;
      expect(received.headers['x-webhook-signature']).to.equal(
        createHmac('sha256', endpoint.secret).update(received.body).digest('hex'),
      );
      expect(Number(received.headers['webhook-timestamp'])).to.be.closeTo(Date.now() / 1000, 30);
    } finally {
      await original.close();
      await attacker.close();
    }
  });
});
