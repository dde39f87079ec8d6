// Campaign pacing: a frequency cap and quiet hours delay sends (never drop them).
import { expect } from 'chai';
import { createContact, track, workspace } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import { eventually, expectProblem } from '../support/factories.ts';
import { activeCampaign, emailChannel, enrollmentWhen } from './support.ts';

const send = (subject: string) => ({ type: 'send', channel: 'email', subject, body: '<p>Hi</p>' });
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe('campaigns: pacing', () => {
  const sink = suiteSink();

  it('reads and sets the pace; a bad one is a 400 naming the field', async () => {
    const { admin, base } = await workspace();
    const path = `${base}/campaign-pacing`;
    expect((await admin.get(path)).body).to.deep.equal({
      frequencyCap: null,
      quietHours: null,
      timezone: null,
      ratePerSecond: {},
    });
    const pace = {
      frequencyCap: { count: 2, per: 'P1D' },
      quietHours: { start: '22:00', end: '07:00' },
      timezone: 'Europe/Paris',
      ratePerSecond: { email: 12.5 },
    };
    const put = await admin.put(path, pace);
    expect(put.status, put.text).to.equal(200);
    expect((await admin.get(path)).body).to.deep.equal(pace);
    const bad = expectProblem(await admin.put(path, { quietHours: { start: '25:00', end: '07:00' } }), 400);
    expect((bad as unknown as { errors: { path: string }[] }).errors[0].path).to.equal(
      'body.quietHours.start',
    );
    expectProblem(await admin.put(path, { frequencyCap: { count: 0, per: 'P1D' } }), 400);
    const badRate = expectProblem(await admin.put(path, { ratePerSecond: { email: 0 } }), 400);
    expect((badRate as unknown as { errors: { path: string }[] }).errors[0].path).to.equal(
      'body.ratePerSecond.email',
    );
    expectProblem(await admin.put(path, { ratePerSecond: { fax: 1 } }), 400);
    const badZone = expectProblem(await admin.put(path, { timezone: 'Mars/Base' }), 400);
    expect((badZone as unknown as { errors: { path: string }[] }).errors[0].path).to.equal('body.timezone');
    expect((await admin.get(path)).body).to.deep.equal(pace);
    const cleared = await admin.put(path, { timezone: 'UTC' });
    expect(cleared.body).to.deep.include({ ratePerSecond: {}, timezone: 'UTC', frequencyCap: null });
  });

  it('delays a send over the frequency cap until the cap allows it', async () => {
    const { admin, base } = await workspace();
    await emailChannel(admin, base, sink.port);
    await admin.put(`${base}/campaign-pacing`, { frequencyCap: { count: 1, per: 'P1D' } });
    const campaignId = await activeCampaign(admin, base, { steps: [send('First'), send('Second')] });
    const contact = await createContact(admin, base, { email: 'capped@pacing.test' });
    await track(admin, base, { type: 'signup', contactId: contact.id });
    const held = await enrollmentWhen(
      admin,
      base,
      campaignId,
      contact.id,
      (e) => e.stepKey === '1' && e.nextStepAt !== null,
    );
    const inMs = new Date(held.nextStepAt!).getTime() - Date.now();
    expect(inMs).to.be.greaterThan(86_000_000).and.at.most(86_400_000);
    const messages = await admin.get(`${base}/messages?campaignId=${campaignId}`);
    expect(messages.body.total).to.equal(1);
    await eventually(async () => (await sink.received()).some((r) => r.to.includes('capped@pacing.test')));
  });

  it('delays a send in quiet hours to their end', async () => {
    const { admin, base } = await workspace();
    await emailChannel(admin, base, sink.port);
    const now = Date.now();
    const quietHours = { start: clock(now - 3_600_000), end: clock(now + 3_600_000) };
    await admin.put(`${base}/campaign-pacing`, { quietHours });
    const campaignId = await activeCampaign(admin, base, { steps: [send('Quiet')] });
    const contact = await createContact(admin, base, { email: 'quiet@pacing.test' });
    await track(admin, base, { type: 'signup', contactId: contact.id });
    const held = await enrollmentWhen(admin, base, campaignId, contact.id, (e) => e.nextStepAt !== null);
    expect(held).to.include({ stepKey: '0', status: 'active' });
    expect(clock(new Date(held.nextStepAt!).getTime())).to.equal(quietHours.end);
    expect((await admin.get(`${base}/messages?campaignId=${campaignId}`)).body.total).to.equal(0);
  });

  it("uses the workspace's default time zone for quiet hours and waits until a time, when the contact has none", async () => {
    const { admin, base } = await workspace();
    await emailChannel(admin, base, sink.port);
    // Asia/Kolkata is UTC+05:30 all year: its clock is the UTC clock moved on 5 h 30.
    const kolkata = (ms: number) => clock(ms + 5.5 * 3_600_000);
    const now = Date.now();
    const quietHours = { start: kolkata(now - 3_600_000), end: kolkata(now + 3_600_000) };
    const put = await admin.put(`${base}/campaign-pacing`, { quietHours, timezone: 'Asia/Kolkata' });
    expect(put.status, put.text).to.equal(200);
    const quiet = await activeCampaign(admin, base, { steps: [send('Quiet')] });
    const waiting = await activeCampaign(admin, base, {
      trigger: { type: 'event', eventType: 'visit' },
      steps: [{ type: 'wait', until: { time: '09:30' } }, { type: 'exit' }],
    });
    const contact = await createContact(admin, base, { email: 'zone@pacing.test' });
    await track(admin, base, { type: 'signup', contactId: contact.id });
    await track(admin, base, { type: 'visit', contactId: contact.id });
    const held = await enrollmentWhen(admin, base, quiet, contact.id, (e) => e.nextStepAt !== null);
    expect(kolkata(new Date(held.nextStepAt!).getTime())).to.equal(quietHours.end);
    const armed = await enrollmentWhen(admin, base, waiting, contact.id, (e) => e.nextStepAt !== null);
    const at = new Date(armed.nextStepAt!).getTime();
    expect(new Date(at).toISOString().slice(11, 16)).to.equal('04:00'); // 09:30 in Kolkata
    expect(at - Date.now())
      .to.be.greaterThan(0)
      .and.at.most(86_400_000);
  });
});
