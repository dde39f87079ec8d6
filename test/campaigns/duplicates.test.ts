// A step never sends twice: the step job of a send, run again (a retry after a crash, or a
// duplicate job) alone or concurrently with the real one, finds the enrollment moved on or waits
// for its lock and then finds it moved on; one message, one email.
import { expect } from 'chai';
import { runStep } from '../../src/campaigns/engine.ts';
import { runStepBatch } from '../../src/campaigns/stepBatch.ts';
import { sql } from '../../src/db/pool.ts';
import { createContact, track, workspace } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import type { Client } from '../support/client.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { activeCampaign, emailChannel, enrollmentWhen } from './support.ts';

describe('campaigns: a step never sends twice', () => {
  const sink = suiteSink();

  /** A workspace sending to the sink, and an active campaign: a send, then a day's wait. */
  async function sendThenWait(subject: string) {
    const { admin, base } = await workspace();
    await emailChannel(admin, base, sink.port);
    const campaignId = await activeCampaign(admin, base, {
      steps: [
        { type: 'send', channel: 'email', subject, body: `<p>${subject}</p>` },
        { type: 'wait', duration: 'P1D' },
      ],
    });
    return { admin, base, campaignId };
  }

  /** Until the contact's enrollment has sent and waits at the second step. */
  const waitingAfterSend = (admin: Client, base: string, campaignId: string, contactId: string) =>
    enrollmentWhen(admin, base, campaignId, contactId, (e) => e.stepKey === '1' && e.nextStepAt !== null);

  it('runs duplicate jobs of a send step, concurrently and after it, and sends one message', async () => {
    const { admin, base, campaignId } = await sendThenWait('Once');
    const contact = await createContact(admin, base, { email: 'once@duplicates.test' });
    await track(admin, base, { type: 'signup', contactId: contact.id });
    const enrollmentId = await server().context.db.oneFirst(
      sql.unsafe`select id from enrollments where contact_id = ${contact.id}`,
    );
    // Five duplicates of the first step's job race the real one for the enrollment…
    const step = { enrollmentId: String(enrollmentId), stepKey: '0' };
    await Promise.all([1, 2, 3, 4, 5].map(() => runStep(server().context, step)));
    await waitingAfterSend(admin, base, campaignId, contact.id);
    // …and three more come after it, as a job retried after a crash would.
    await Promise.all([1, 2, 3].map(() => runStep(server().context, step)));
    await eventually(async () => (await sink.received()).some((r) => r.to.includes('once@duplicates.test')));
    const messages = await admin.get(`${base}/messages?campaignId=${campaignId}`);
    expect(messages.body.total).to.equal(1);
    await new Promise((resolve) => setTimeout(resolve, 300)); // any second send would have landed
    expect((await sink.received()).filter((r) => r.to.includes('once@duplicates.test'))).to.have.length(1);
  });

  it('runs a batch of step jobs with duplicates and stale ones, twice, and sends one message per enrollment', async () => {
    const { admin, base, campaignId } = await sendThenWait('Batch');
    const emails = ['first@batch.test', 'second@batch.test'];
    const contacts = [];
    for (const email of emails) {
      const contact = await createContact(admin, base, { email });
      await track(admin, base, { type: 'signup', contactId: contact.id });
      contacts.push(contact);
    }
    const enrollmentIds = await server().context.db.anyFirst(sql.unsafe`
      select id from enrollments where campaign_id = ${campaignId} order by id`);
    // The worker runs the real jobs meanwhile; the batch repeats one, and holds a stale one.
    const jobs = [
      ...enrollmentIds.map((id) => ({ enrollmentId: String(id), stepKey: '0' })),
      { enrollmentId: String(enrollmentIds[0]), stepKey: '0' },
      { enrollmentId: String(enrollmentIds[1]), stepKey: '1' },
    ];
    await Promise.all([runStepBatch(server().context, jobs), runStepBatch(server().context, jobs)]);
    for (const contact of contacts) await waitingAfterSend(admin, base, campaignId, contact.id);
    await runStepBatch(server().context, jobs);
    const received = async (email: string) => (await sink.received()).filter((r) => r.to.includes(email));
    await eventually(
      async () => (await received(emails[0])).length > 0 && (await received(emails[1])).length > 0,
    );
    const messages = await admin.get(`${base}/messages?campaignId=${campaignId}`);
    expect(messages.body.total).to.equal(2);
    await new Promise((resolve) => setTimeout(resolve, 300)); // any second send would have landed
    for (const email of emails) expect(await received(email)).to.have.length(1);
  });
});
