// The campaign report (enrollments, messages per step and in total, split paths) and the preview
// of a send step for a contact.
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { createContact, track, workspace } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import { eventually, expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { activeCampaign, createCampaign, emailChannel } from './support.ts';

const send = (subject: string) => ({
  type: 'send',
  channel: 'email',
  subject,
  body: '<p>Hello {{ contact.firstName }}</p>',
});

describe('campaigns: report and preview', () => {
  const sink = suiteSink();

  it('counts enrollments, messages per step and in total, and the split paths drawn', async () => {
    const { admin, base } = await workspace();
    await emailChannel(admin, base, sink.port);
    const campaignId = await activeCampaign(admin, base, {
      steps: [
        {
          type: 'split',
          paths: [
            { weight: 1, steps: [send('A')] },
            { weight: 1, steps: [send('B')] },
          ],
        },
        { type: 'wait', duration: 'P1D' },
      ],
    });
    sink.reject.set('bounce@report.test', 550);
    const emails = ['one@report.test', 'two@report.test', 'bounce@report.test', null];
    for (const email of emails) {
      const contact = await createContact(admin, base, email ? { email } : { phone: '+15550000001' });
      await track(admin, base, { type: 'signup', contactId: contact.id });
    }
    const report = await eventually(async () => {
      const got = await admin.get(`${base}/campaigns/${campaignId}/report`);
      expect(got.status, got.text).to.equal(200);
      const m = got.body.messages;
      return m.sent + m.bounced + m.suppressed === 4 ? got.body : undefined;
    });
    expect(report.enrollments).to.deep.equal({
      enrolled: 4,
      active: 4,
      completed: 0,
      converted: 0,
      exited: 0,
    });
    expect(report.messages).to.deep.equal({
      queued: 0,
      sent: 2,
      failed: 0,
      bounced: 1,
      suppressed: 1,
      unsubscribes: 0,
      uniqueOpens: 0,
      uniqueClicks: 0,
      clickThroughRate: 0,
      machineOpens: 0,
      machineClicks: 0,
      proxyOpens: 0,
    });
    const keys = report.steps.map((step: { stepKey: string }) => step.stepKey);
    expect(keys).to.deep.equal(['0', '0.paths.0.0', '0.paths.1.0', '1']);
    const split = report.steps[0];
    expect(split.paths.map((p: { path: number; weight: number }) => [p.path, p.weight])).to.deep.equal([
      [0, 1],
      [1, 1],
    ]);
    expect(split.paths[0].enrolled + split.paths[1].enrolled).to.equal(4);
    const sends = report.steps.filter((step: { type: string }) => step.type === 'send');
    expect(sends.map((s: { messages: { sent: number } }) => s.messages)).to.have.length(2);
    for (const [index, step] of sends.entries()) {
      const total = Object.values(step.messages as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(total).to.equal(split.paths[index].enrolled);
    }
  });

  it('previews a send step for a contact; a bad step or template is a 400 naming it', async () => {
    const { admin, base } = await workspace();
    await emailChannel(admin, base, sink.port);
    const steps = [
      { type: 'wait', duration: 'P1D' },
      send('Hi {{ contact.firstName | default: "there" }}'),
      { type: 'send', channel: 'email', subject: 'Oops', body: '<p>\n{{ contact.email | evil }}</p>' },
    ];
    const campaign = await createCampaign(admin, base, { steps: steps.slice(0, 2) });
    // A save checks templates now (a 400); a campaign saved before that check may still hold one.
    await server().context.db.query(sql.unsafe`
      update campaigns set steps = ${sql.jsonb(steps)} where id = ${campaign.id}`);
    const contact = await createContact(admin, base, { email: 'ada@preview.test', firstName: 'Ada' });
    const preview = await admin.post(`${base}/campaigns/${campaign.id}/preview`, {
      contactId: contact.id,
      step: '1',
    });
    expect(preview.status, preview.text).to.equal(200);
    expect(preview.body).to.deep.include({
      stepKey: '1',
      channel: 'email',
      subject: 'Hi Ada',
      html: '<p>Hello Ada</p>',
    });
    expect(preview.body.text).to.equal('Hello Ada');

    const bad = await admin.post(`${base}/campaigns/${campaign.id}/preview`, {
      contactId: contact.id,
      step: '2',
    });
    expectProblem(bad, 400);
    expect(bad.body.errors[0].path).to.equal('step');
    expect(bad.body.errors[0].message).to.match(/^step 2, html, line 2, column \d+: .*evil/);
    for (const step of ['0', '9', 'x']) {
      const wrong = await admin.post(`${base}/campaigns/${campaign.id}/preview`, {
        contactId: contact.id,
        step,
      });
      expectProblem(wrong, 400);
    }
    expectProblem(
      await admin.post(`${base}/campaigns/${campaign.id}/preview`, { contactId: 'ct_nope', step: '1' }),
      404,
    );
  });

  it('previews push steps (title, body, url, icon) and Telegram steps (text) as they would be sent', async () => {
    const { admin, base } = await workspace();
    const campaign = await createCampaign(admin, base, {
      steps: [
        {
          type: 'send',
          channel: 'push',
          title: 'Hi {{ contact.firstName }}',
          body: 'Sale on {{ contact.attributes.plan }}',
          url: 'https://shop.example.com/sale?who={{ contact.firstName }}',
          icon: 'https://shop.example.com/icon.png',
        },
        { type: 'send', channel: 'push', title: 'Plain', body: 'No link' },
        { type: 'send', channel: 'telegram', text: 'Hello {{ contact.firstName }} <3' },
        { type: 'send', channel: 'telegram', text: '<b>{{ contact.firstName }}</b>', parseMode: 'HTML' },
      ],
    });
    const contact = await createContact(admin, base, {
      email: 'ann@preview.test',
      firstName: 'Ann<',
      attributes: { plan: 'pro' },
    });
    const preview = (step: string) =>
      admin.post(`${base}/campaigns/${campaign.id}/preview`, { contactId: contact.id, step });

    const push = await preview('0');
    expect(push.status, push.text).to.equal(200);
    expect(push.body).to.deep.equal({
      stepKey: '0',
      channel: 'push',
      title: 'Hi Ann<',
      body: 'Sale on pro',
      url: 'https://shop.example.com/sale?who=Ann<',
      icon: 'https://shop.example.com/icon.png',
    });
    const plain = await preview('1');
    expect(plain.body).to.deep.equal({ stepKey: '1', channel: 'push', title: 'Plain', body: 'No link' });

    const telegram = await preview('2');
    expect(telegram.status, telegram.text).to.equal(200);
    expect(telegram.body).to.deep.equal({ stepKey: '2', channel: 'telegram', text: 'Hello Ann< <3' });
    const html = await preview('3');
    expect(html.body).to.deep.equal({
      stepKey: '3',
      channel: 'telegram',
      text: '<b>Ann&lt;</b>',
      parseMode: 'HTML',
    });

    // A saved step checks its templates; one saved before that check names the part that fails.
    const broken = { type: 'send', channel: 'push', title: 'Hi\n{{ contact.firstName | evil }}', body: 'x' };
    await server().context.db.query(sql.unsafe`
      update campaigns set steps = steps || ${sql.jsonb([broken])} where id = ${campaign.id}`);
    const bad = await preview('4');
    expectProblem(bad, 400);
    expect(bad.body.errors[0].message).to.match(/^step 4, title, line 2, column \d+: .*evil/);
  });
});
