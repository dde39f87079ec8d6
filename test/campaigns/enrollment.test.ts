import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { track, workspace } from '../events/support.ts';
import type { Client } from '../support/client.ts';
import { server } from '../support/server.ts';
import { createCampaign, STEPS } from './support.ts';

async function activeCampaign(client: Client, base: string, overrides: Record<string, unknown>) {
  const campaign = await createCampaign(client, base, overrides);
  const activated = await client.post(`${base}/campaigns/${campaign.id}/activate`);
  expect(activated.status, activated.text).to.equal(200);
  return campaign.id as string;
}

async function enrollments(client: Client, base: string, campaignId: string) {
  const response = await client.get(`${base}/campaigns/${campaignId}/enrollments?limit=200`);
  expect(response.status, response.text).to.equal(200);
  return response.body;
}

async function createSegment(client: Client, base: string, rules: unknown) {
  const response = await client.post(`${base}/segments`, { name: 'segment', rules });
  expect(response.status, response.text).to.equal(201);
  return response.body.id as string;
}

describe('campaigns: enrollment at ingest', () => {
  it('enrolls on a matching event trigger whose where holds, at step 0, and emits the enrollment', async () => {
    const { admin, base, workspaceId } = await workspace();
    const campaignId = await activeCampaign(admin, base, {
      trigger: { type: 'event', eventType: 'purchase', where: [{ path: 'amount', op: 'gt', value: 100 }] },
      steps: [{ type: 'wait', duration: 'P2D' }, ...STEPS], // it stays at step 0 while the test looks
    });
    await track(admin, base, { type: 'purchase', email: 'small@example.com', metadata: { amount: 5 } });
    await track(admin, base, { type: 'signup', email: 'other@example.com', metadata: { amount: 500 } });
    const big = await track(admin, base, {
      type: 'purchase',
      email: 'big@example.com',
      metadata: { amount: 500 },
    });
    const page = await enrollments(admin, base, campaignId);
    expect(page.total).to.equal(1);
    expect(page.data[0]).to.include({
      campaignId,
      contactId: big.contact.id,
      status: 'active',
      currentStep: 0,
      triggerEventId: big.id,
      completedAt: null,
    });
    const emitted = await server().context.db.anyFirst(sql.unsafe`
      select data from outgoing_events where workspace_id = ${workspaceId} and type = 'campaign.contact.enrolled'`);
    expect(emitted).to.deep.equal([{ campaignId, contactId: big.contact.id }]);
  });

  it('does not enroll from draft, paused or archived campaigns', async () => {
    const { admin, base } = await workspace();
    const draft = await createCampaign(admin, base);
    const paused = await activeCampaign(admin, base, {});
    await admin.post(`${base}/campaigns/${paused}/pause`);
    await track(admin, base, { type: 'signup', email: 'x@example.com' });
    expect((await enrollments(admin, base, draft.id)).total).to.equal(0);
    expect((await enrollments(admin, base, paused)).total).to.equal(0);
    await admin.post(`${base}/campaigns/${paused}/resume`);
    await track(admin, base, { type: 'signup', email: 'y@example.com' });
    expect((await enrollments(admin, base, paused)).total).to.equal(1);
  });

  it('enrolls on segment entry, and only on entry', async () => {
    const { admin, base } = await workspace();
    const segmentId = await createSegment(admin, base, { event: 'purchase', count: { gte: 2 } });
    const campaignId = await activeCampaign(admin, base, { trigger: { type: 'segment_entered', segmentId } });
    const first = await track(admin, base, { type: 'purchase', email: 'buyer@example.com' });
    expect((await enrollments(admin, base, campaignId)).total).to.equal(0);
    await track(admin, base, { type: 'purchase', contactId: first.contact.id });
    await track(admin, base, { type: 'purchase', contactId: first.contact.id });
    const page = await enrollments(admin, base, campaignId);
    expect(page.total).to.equal(1);
    expect(page.data[0]).to.include({ contactId: first.contact.id, triggerEventId: null });
  });

  it('enrolls a contact created into a segment by a contact write', async () => {
    const { admin, base } = await workspace();
    const segmentId = await createSegment(admin, base, { attribute: 'plan', op: 'eq', value: 'pro' });
    const campaignId = await activeCampaign(admin, base, { trigger: { type: 'segment_entered', segmentId } });
    const created = await admin.post(`${base}/contacts`, {
      email: 'pro@example.com',
      attributes: { plan: 'pro' },
    });
    const other = await admin.post(`${base}/contacts`, { email: 'free@example.com' });
    await admin.patch(`${base}/contacts/${other.body.id}`, { attributes: { plan: 'pro' } });
    const contactIds = (await enrollments(admin, base, campaignId)).data.map(
      (e: { contactId: string }) => e.contactId,
    );
    expect(contactIds.sort()).to.deep.equal([created.body.id, other.body.id].sort());
  });

  describe('reentry', () => {
    async function enrollTwiceAfterCompletion(reentry: string) {
      const { admin, base } = await workspace();
      const campaignId = await activeCampaign(admin, base, { reentry });
      const event = await track(admin, base, { type: 'signup', email: 'r@example.com' });
      await track(admin, base, { type: 'signup', contactId: event.contact.id });
      const whileActive = (await enrollments(admin, base, campaignId)).total;
      // Completing a flow arrives with campaign execution; mark it here as that work will.
      await server().context.db.query(sql.unsafe`
        update enrollments set status = 'completed', completed_at = now() where campaign_id = ${campaignId}`);
      await track(admin, base, { type: 'signup', contactId: event.contact.id });
      return { whileActive, afterCompletion: (await enrollments(admin, base, campaignId)).total };
    }

    it('never: once ever', async () => {
      expect(await enrollTwiceAfterCompletion('never')).to.deep.equal({ whileActive: 1, afterCompletion: 1 });
    });

    it('after_completion: again only once the previous enrollment ended', async () => {
      expect(await enrollTwiceAfterCompletion('after_completion')).to.deep.equal({
        whileActive: 1,
        afterCompletion: 2,
      });
    });

    it('always: on every trigger', async () => {
      expect(await enrollTwiceAfterCompletion('always')).to.deep.equal({
        whileActive: 2,
        afterCompletion: 3,
      });
    });

    it('applies within one batch too', async () => {
      const { admin, base } = await workspace();
      const never = await activeCampaign(admin, base, { reentry: 'never' });
      const always = await activeCampaign(admin, base, { reentry: 'always' });
      const events = Array.from({ length: 3 }, () => ({ type: 'signup', email: 'b@example.com' }));
      expect((await admin.post(`${base}/events/batch`, { events })).status).to.equal(201);
      expect((await enrollments(admin, base, never)).total).to.equal(1);
      expect((await enrollments(admin, base, always)).total).to.equal(3);
    });
  });
});
