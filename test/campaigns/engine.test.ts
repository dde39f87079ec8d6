// The flow engine through the real API and worker: enrollment at ingest, waits as delayed jobs,
// branches, splits, exits, goals, broadcasts, and what pause, resume and archive do.
import { expect } from 'chai';
import { createContact, outgoing, track, workspace } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import { eventually } from '../support/factories.ts';
import { activeCampaign, emailChannel, enrollmentsOf, enrollmentWhen } from './support.ts';

const SEND = { type: 'send', channel: 'email', subject: 'Hi {{ contact.firstName }}', body: '<p>Hello</p>' };

describe('campaigns: the flow engine', () => {
  const sink = suiteSink();

  it('event → enrollment → wait → branch → send → exit on the goal; the other arm ends the flow', async () => {
    const { admin, base, workspaceId } = await workspace();
    await emailChannel(admin, base, sink.port);
    const campaignId = await activeCampaign(admin, base, {
      steps: [
        { type: 'wait', duration: 'PT1S' },
        {
          type: 'branch',
          if: { attribute: 'plan', op: 'eq', value: 'pro' },
          // biome-ignore lint/suspicious/noThenProperty: the branch step's arm
          then: [SEND, { type: 'wait', duration: 'P1D' }],
          else: [{ type: 'exit' }],
        },
      ],
      goal: { eventType: 'purchase', where: [{ path: 'amount', op: 'gt', value: 10 }] },
    });
    const pro = await createContact(admin, base, {
      email: 'pro@engine.test',
      firstName: 'Ada',
      attributes: { plan: 'pro' },
    });
    const free = await createContact(admin, base, {
      email: 'free@example.com',
      attributes: { plan: 'free' },
    });
    const started = Date.now();
    await track(admin, base, { type: 'signup', contactId: pro.id });
    await track(admin, base, { type: 'signup', contactId: free.id });

    const waiting = await enrollmentWhen(admin, base, campaignId, pro.id, (e) => e.nextStepAt !== null);
    expect(waiting).to.include({ status: 'active', stepKey: '0' });
    const afterSend = await enrollmentWhen(
      admin,
      base,
      campaignId,
      pro.id,
      (e) => e.stepKey === '1.then.1' && e.nextStepAt !== null,
    );
    expect(Date.now() - started).to.be.at.least(1_000); // the wait held it
    expect(new Date(afterSend.nextStepAt!).getTime() - Date.now()).to.be.greaterThan(86_000_000);
    const mail = await eventually(async () =>
      (await sink.received()).find((r) => r.to.includes('pro@engine.test')),
    );
    expect(mail.mail.subject).to.equal('Hi Ada');
    // The outcome is recorded once the SMTP server has accepted it (with its batch's other sends).
    const messages = await eventually(async () => {
      const page = await admin.get(`${base}/messages?campaignId=${campaignId}`);
      return page.body.data[0]?.status === 'sent' ? page : null;
    });
    expect(messages.body.data).to.have.length(1);
    expect(messages.body.data[0]).to.include({ contactId: pro.id, status: 'sent' });

    const done = await enrollmentWhen(admin, base, campaignId, free.id, (e) => e.status !== 'active');
    expect(done).to.include({ status: 'completed', exitReason: null, stepKey: null });
    const completions = (await outgoing(workspaceId, 'campaign.contact.completed')) as Record<
      string,
      unknown
    >[];
    expect(completions).to.have.length(1);
    expect(completions[0]).to.include({ campaignId, contactId: free.id, completedAt: done.completedAt });

    await track(admin, base, { type: 'purchase', contactId: pro.id, metadata: { amount: 5 } }); // where fails
    expect(
      (await enrollmentsOf(admin, base, campaignId)).find((e) => e.contactId === pro.id)?.status,
    ).to.equal('active');
    await track(admin, base, { type: 'purchase', contactId: pro.id, metadata: { amount: 50 } });
    const converted = (await enrollmentsOf(admin, base, campaignId)).find((e) => e.contactId === pro.id)!;
    expect(converted).to.include({
      status: 'converted',
      exitReason: 'goal',
      stepKey: null,
      nextStepAt: null,
    });
  });

  it('waits until the next local time in the contact time zone, else the step time zone', async () => {
    const { admin, base } = await workspace();
    await emailChannel(admin, base, sink.port);
    const campaignId = await activeCampaign(admin, base, {
      steps: [{ type: 'wait', until: { time: '09:30', timezone: 'America/New_York' } }, { type: 'exit' }],
    });
    const tokyo = await createContact(admin, base, {
      email: 't@example.com',
      attributes: { timezone: 'Asia/Tokyo' },
    });
    const other = await createContact(admin, base, {
      email: 'o@example.com',
      attributes: { timezone: 'Mars/Base' },
    });
    await track(admin, base, { type: 'signup', contactId: tokyo.id });
    await track(admin, base, { type: 'signup', contactId: other.id });
    const local = (at: string, timeZone: string) =>
      new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit' }).format(new Date(at));
    for (const [contact, zone] of [
      [tokyo, 'Asia/Tokyo'],
      [other, 'America/New_York'],
    ] as const) {
      const waiting = await enrollmentWhen(admin, base, campaignId, contact.id, (e) => e.nextStepAt !== null);
      expect(local(waiting.nextStepAt!, zone)).to.equal('09:30');
      const inMs = new Date(waiting.nextStepAt!).getTime() - Date.now();
      expect(inMs).to.be.greaterThan(0).and.at.most(86_400_000);
    }
  });

  it('draws one split path per enrollment, records it, and follows it', async () => {
    const { admin, base } = await workspace();
    await emailChannel(admin, base, sink.port);
    const hold = [{ type: 'wait', duration: 'P1D' }];
    const campaignId = await activeCampaign(admin, base, {
      steps: [
        {
          type: 'split',
          paths: [
            { weight: 1, steps: hold },
            { weight: 1, steps: hold },
          ],
        },
      ],
    });
    const contacts = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) => createContact(admin, base, { email: `s${n}@example.com` })),
    );
    for (const contact of contacts) await track(admin, base, { type: 'signup', contactId: contact.id });
    for (const contact of contacts) {
      const e = await enrollmentWhen(admin, base, campaignId, contact.id, (x) => x.nextStepAt !== null);
      expect(e.cohorts['0']).to.be.oneOf([0, 1]);
      expect(e.stepKey).to.equal(`0.paths.${e.cohorts['0']}.0`);
    }
  });
});
