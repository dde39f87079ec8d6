// What a campaign's status does to its enrollments in the engine: a broadcast enrolls its segment
// in pages (at sendAt), pause holds contacts at their next step and resume moves them on, archive
// exits them; campaign.completed once the last enrollment of a finished campaign ends.
import { expect } from 'chai';
import { createContact, outgoing, track, workspace } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import type { Client } from '../support/client.ts';
import { eventually } from '../support/factories.ts';
import { activeCampaign, createCampaign, emailChannel, enrollmentsOf, enrollmentWhen } from './support.ts';

async function readySegment(client: Client, base: string, rules: unknown) {
  const created = await client.post(`${base}/segments`, { name: 'members', rules });
  expect(created.status, created.text).to.equal(201);
  await eventually(
    async () => (await client.get(`${base}/segments/${created.body.id}`)).body.status === 'ready',
  );
  return created.body.id as string;
}

describe('campaigns: lifecycle in the engine', () => {
  const sink = suiteSink();

  it('a broadcast enrolls every member at sendAt, in pages, sends once each, then completes', async () => {
    const { admin, base, workspaceId } = await workspace();
    await emailChannel(admin, base, sink.port);
    const gold = [];
    for (const n of [1, 2, 3, 4, 5]) {
      gold.push(
        await createContact(admin, base, { email: `gold${n}@broadcast.test`, attributes: { tier: 'gold' } }),
      );
    }
    await createContact(admin, base, { email: 'silver@broadcast.test', attributes: { tier: 'silver' } });
    const segmentId = await readySegment(admin, base, { attribute: 'tier', op: 'eq', value: 'gold' });
    const campaign = await createCampaign(admin, base, {
      name: 'Gold news',
      trigger: { type: 'broadcast', segmentId, sendAt: new Date(Date.now() + 1_500).toISOString() },
      steps: [{ type: 'send', channel: 'email', subject: 'News', body: '<p>News</p>' }],
    });
    expect((await admin.post(`${base}/campaigns/${campaign.id}/activate`)).status).to.equal(200);
    expect(await enrollmentsOf(admin, base, campaign.id)).to.have.length(0); // not before sendAt

    const [completed] = await eventually(async () => {
      const events = await outgoing(workspaceId, 'campaign.completed');
      return events.length ? events : undefined;
    });
    expect(completed).to.deep.equal({ campaignId: campaign.id, name: 'Gold news', totalEnrolled: 5 });
    const enrollments = await enrollmentsOf(admin, base, campaign.id);
    expect(enrollments.map((e) => e.contactId).sort()).to.deep.equal(gold.map((c) => c.id).sort());
    expect(enrollments.every((e) => e.status === 'completed')).to.equal(true);
    await eventually(
      async () => (await sink.received()).filter((r) => r.to[0].endsWith('@broadcast.test')).length === 5,
    );
    const messages = await admin.get(`${base}/messages?campaignId=${campaign.id}&limit=100`);
    expect(messages.body.total).to.equal(5);
    expect(await outgoing(workspaceId, 'campaign.completed')).to.have.length(1);
  });

  it('pause holds contacts at their next step; resume moves them on', async () => {
    const { admin, base } = await workspace();
    await emailChannel(admin, base, sink.port);
    const campaignId = await activeCampaign(admin, base, {
      steps: [{ type: 'wait', duration: 'PT1S' }, { type: 'exit' }],
    });
    const contact = await createContact(admin, base, { email: 'paused@example.com' });
    await track(admin, base, { type: 'signup', contactId: contact.id });
    await enrollmentWhen(admin, base, campaignId, contact.id, (e) => e.nextStepAt !== null);
    expect((await admin.post(`${base}/campaigns/${campaignId}/pause`)).status).to.equal(200);
    const held = await enrollmentWhen(admin, base, campaignId, contact.id, (e) => e.held);
    expect(held).to.include({ status: 'active', stepKey: '0' });
    expect((await admin.post(`${base}/campaigns/${campaignId}/resume`)).status).to.equal(200);
    const done = await enrollmentWhen(admin, base, campaignId, contact.id, (e) => e.status !== 'active');
    expect(done).to.include({ status: 'completed', held: false });
  });

  it('archive exits every active enrollment and completes the campaign', async () => {
    const { admin, base, workspaceId } = await workspace();
    await emailChannel(admin, base, sink.port);
    const campaignId = await activeCampaign(admin, base, {
      name: 'Long one',
      steps: [{ type: 'wait', duration: 'P1D' }, { type: 'exit' }],
    });
    for (const n of [1, 2]) {
      const contact = await createContact(admin, base, { email: `a${n}@example.com` });
      await track(admin, base, { type: 'signup', contactId: contact.id });
      await enrollmentWhen(admin, base, campaignId, contact.id, (e) => e.nextStepAt !== null);
    }
    expect(await outgoing(workspaceId, 'campaign.completed')).to.have.length(0);
    expect((await admin.post(`${base}/campaigns/${campaignId}/archive`)).status).to.equal(200);
    const enrollments = await enrollmentsOf(admin, base, campaignId);
    expect(enrollments.map((e) => [e.status, e.exitReason])).to.deep.equal([
      ['exited', 'archived'],
      ['exited', 'archived'],
    ]);
    expect(await outgoing(workspaceId, 'campaign.completed')).to.deep.equal([
      { campaignId, name: 'Long one', totalEnrolled: 2 },
    ]);
  });

  it('a manual exit ends one enrollment at once: no further step, no contact.completed; 409 once ended', async () => {
    const { admin, base, workspaceId } = await workspace();
    await emailChannel(admin, base, sink.port);
    const campaignId = await activeCampaign(admin, base, {
      steps: [
        { type: 'wait', duration: 'PT1S' },
        { type: 'send', channel: 'email', subject: 'After', body: '<p>After</p>' },
      ],
    });
    const [leaving, staying] = [
      await createContact(admin, base, { email: 'leaving@manual.test' }),
      await createContact(admin, base, { email: 'staying@manual.test' }),
    ];
    for (const contact of [leaving, staying]) {
      await track(admin, base, { type: 'signup', contactId: contact.id });
    }
    const armed = await enrollmentWhen(admin, base, campaignId, leaving.id, (e) => e.nextStepAt !== null);
    const exit = `${base}/campaigns/${campaignId}/enrollments/${armed.id}/exit`;
    const exited = await admin.post(exit);
    expect(exited.status, exited.text).to.equal(200);
    expect(exited.body).to.include({ id: armed.id, status: 'exited', exitReason: 'manual', stepKey: null });
    expect(exited.body.completedAt).to.be.a('string');

    await enrollmentWhen(admin, base, campaignId, staying.id, (e) => e.status === 'completed');
    await eventually(async () => (await sink.received()).some((r) => r.to[0] === 'staying@manual.test'));
    const after = await enrollmentWhen(admin, base, campaignId, leaving.id, () => true);
    expect(after).to.include({ status: 'exited', exitReason: 'manual' });
    expect((await admin.get(`${base}/messages?contactId=${leaving.id}`)).body.total).to.equal(0);
    const completed = await outgoing(workspaceId, 'campaign.contact.completed');
    expect(completed.map((data) => (data as { contactId: string }).contactId)).to.deep.equal([staying.id]);

    const again = await admin.post(exit);
    expect(again.status).to.equal(409);
    expect(again.body.detail).to.include('exited, manual');
    const missing = await admin.post(`${base}/campaigns/${campaignId}/enrollments/enr_nope/exit`);
    expect(missing.status).to.equal(404);
    const other = await workspace();
    const foreign = await other.admin.post(
      `${other.base}/campaigns/${campaignId}/enrollments/${armed.id}/exit`,
    );
    expect(foreign.status).to.equal(404);
  });
});
