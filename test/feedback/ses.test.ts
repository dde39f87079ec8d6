// Amazon SES feedback through SNS: envelopes signed here (SignatureVersion 1 and 2) with a local key
// whose certificate a local HTTPS server serves; the receiver verifies, pins the topic, confirms
// subscriptions, applies bounces, complaints and deliveries to the message, and ignores replays.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { messagingWorkspace, outgoing, sendHi, suiteSink, waitForStatus } from '../messages/support.ts';
import { expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';
import {
  configureFeedback,
  type FakeSns,
  postSns,
  sentMessage,
  signSns,
  snsNotification,
  startFakeSns,
  suiteWebTrustingLocalSns,
  TOPIC_ARN,
  timelineOf,
} from './support.ts';

const countRows = async (table: 'email_feedback_receipts' | 'email_feedback_events', workspaceId: string) =>
  server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from ${sql.identifier([table])} where workspace_id = ${workspaceId}
  `);

describe('provider feedback: Amazon SES through SNS', () => {
  const sink = suiteSink();
  const web = suiteWebTrustingLocalSns();
  let sns: FakeSns;
  before(async () => {
    sns = await startFakeSns();
  });
  after(() => sns.close());

  const bounce = (bounceType: string, mail: object, email: string) => ({
    notificationType: 'Bounce',
    bounce: {
      bounceType,
      bounceSubType: bounceType === 'Permanent' ? 'General' : 'MailboxFull',
      bouncedRecipients: [{ emailAddress: email, diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
      feedbackId: 'fb-1',
    },
    mail,
  });

  it('stores the provider id from the SMTP reply and sends the SES message tag', async () => {
    const { message, email } = await sentMessage(sink, 'ses', { topicArn: TOPIC_ARN });
    expect(message.providerId).to.match(/^sink-\d+$/);
    const got = (await sink.received()).find((r) => r.to.includes(email))!;
    expect(got.headers['x-ses-message-tags']).to.equal(`switchboard_message_id=${message.id}`);
    expect(got.headers['x-switchboard-message-id']).to.equal(message.id);
  });

  it('applies a version 1 hard bounce found by SES’s message id: bounced, suppressed, webhook; a replay changes nothing', async () => {
    const { client, base, workspaceId, endpoint, email, contactId, message } = await sentMessage(
      sink,
      'ses',
      { topicArn: TOPIC_ARN },
    );
    const envelope = signSns(
      snsNotification(sns, bounce('Permanent', { messageId: message.providerId }, email)),
      '1',
    );
    const first = await postSns(web, endpoint.id, envelope);
    expect(first.status, first.text).to.equal(200);
    expect(first.body.events).to.deep.equal([
      { eventId: envelope.MessageId, type: 'Bounce', outcome: 'applied', messageId: message.id },
    ]);
    const after = await waitForStatus(client, base, message.id, 'bounced');
    const bounced = after.timeline.filter((entry: { type: string }) => entry.type === 'bounced');
    expect(bounced).to.have.length(1);
    expect(bounced[0].detail).to.include({ bounceType: 'hard', provider: 'ses' });
    expect(await outgoing(workspaceId, 'message.bounced')).to.deep.equal([
      { messageId: message.id, contactId, bounceType: 'hard' },
    ]);
    const subscriptions = await client.get(`${base}/contacts/${contactId}/subscriptions`);
    const emailState = subscriptions.body.subscriptions.find(
      (s: { channel: string }) => s.channel === 'email',
    );
    expect(emailState).to.include({ status: 'unsubscribed', reason: 'hard_bounce', messageId: message.id });

    const replay = await postSns(web, endpoint.id, envelope);
    expect(replay.status, replay.text).to.equal(200);
    expect(replay.body.events[0].outcome).to.equal('duplicate');
    const again = await client.get(`${base}/messages/${message.id}`);
    expect(again.body.timeline.filter((entry: { type: string }) => entry.type === 'bounced')).to.have.length(
      1,
    );
    expect(await outgoing(workspaceId, 'message.bounced')).to.have.length(1);
    expect(await countRows('email_feedback_receipts', workspaceId)).to.equal(2);
  });

  it('applies a version 2 complaint and a delivery found by the echoed message tag', async () => {
    const { client, base, workspaceId, endpoint, email, contactId, message } = await sentMessage(
      sink,
      'ses',
      { topicArn: TOPIC_ARN },
    );
    const mail = { messageId: 'ses-id-not-ours', tags: { switchboard_message_id: [message.id] } };
    const certFetches = sns.certFetches();
    const delivery = signSns(
      snsNotification(sns, {
        eventType: 'Delivery',
        delivery: { recipients: [email], smtpResponse: '250 ok' },
        mail,
      }),
      '2',
    );
    expect((await postSns(web, endpoint.id, delivery)).status).to.equal(200);
    const complaint = signSns(
      snsNotification(sns, {
        notificationType: 'Complaint',
        complaint: { complainedRecipients: [{ emailAddress: email }], complaintFeedbackType: 'abuse' },
        mail,
      }),
      '2',
    );
    const answered = await postSns(web, endpoint.id, complaint);
    expect(answered.status, answered.text).to.equal(200);
    expect(answered.body.events[0]).to.include({ outcome: 'applied', messageId: message.id });
    // The signing certificate is fetched once and kept.
    expect(sns.certFetches()).to.be.at.most(Math.max(certFetches, 1));

    expect(await timelineOf(client, base, message.id)).to.deep.equal([
      'queued',
      'sent',
      'delivered',
      'complained',
    ]);
    expect(await outgoing(workspaceId, 'message.delivered')).to.deep.equal([
      { messageId: message.id, contactId, channel: 'email' },
    ]);
    expect(await outgoing(workspaceId, 'message.complained')).to.deep.equal([
      { messageId: message.id, contactId },
    ]);
    const subscriptions = await client.get(`${base}/contacts/${contactId}/subscriptions`);
    const emailState = subscriptions.body.subscriptions.find(
      (s: { channel: string }) => s.channel === 'email',
    );
    expect(emailState).to.include({ status: 'unsubscribed', reason: 'complaint' });
  });

  it('refuses a tampered message, another topic and a certificate off the SNS hosts with 401, storing nothing', async () => {
    const { workspaceId, endpoint, email, message } = await sentMessage(sink, 'ses', { topicArn: TOPIC_ARN });
    const signed = signSns(
      snsNotification(sns, bounce('Permanent', { messageId: message.providerId }, email)),
      '2',
    );
    const tampered = { ...signed, Message: signed.Message.replace('Permanent', 'Transient') };
    expectProblem(await postSns(web, endpoint.id, tampered), 401);
    const otherTopic = signSns(
      snsNotification(sns, bounce('Permanent', {}, email), {
        TopicArn: 'arn:aws:sns:eu-west-1:123456789012:other',
      }),
      '2',
    );
    expectProblem(await postSns(web, endpoint.id, otherTopic), 401);
    // The main test process keeps the default host pattern: a certificate on 127.0.0.1 is never fetched.
    const fetches = sns.certFetches();
    const offHost = await fetch(`${server().baseUrl}/api/feedback/${endpoint.id}/ses`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(signed),
    });
    expect(offHost.status).to.equal(401);
    expect(sns.certFetches()).to.equal(fetches);
    expect(await countRows('email_feedback_receipts', workspaceId)).to.equal(0);
    expect(await countRows('email_feedback_events', workspaceId)).to.equal(0);
    const detail = await server().context.db.oneFirst(sql.type(z.object({ status: z.string() }))`
      select status from messages where id = ${message.id}
    `);
    expect(detail).to.equal('sent');
  });

  it('confirms a subscription by visiting SubscribeURL only once the signature checks out', async () => {
    const { admin, workspaceId, endpoint } = await messagingWorkspace(sink).then(async (w) => ({
      ...w,
      endpoint: await configureFeedback(w.admin, w.workspaceId, 'ses', { topicArn: TOPIC_ARN }),
    }));
    const token = `token-${Date.now()}`;
    const subscription = {
      Type: 'SubscriptionConfirmation',
      MessageId: `sub-${Date.now()}`,
      Token: token,
      TopicArn: TOPIC_ARN,
      Message: 'You have chosen to subscribe to the topic.',
      SubscribeURL: `${sns.origin}/confirm?Token=${token}`,
      Timestamp: new Date().toISOString(),
      SigningCertURL: `${sns.origin}/cert.pem`,
    };
    const forged = { ...signSns(subscription, '1'), SubscribeURL: `${sns.origin}/confirm?Token=forged` };
    expectProblem(await postSns(web, endpoint.id, forged), 401);
    expect(sns.hits.some((hit) => hit.includes('forged'))).to.equal(false);

    const confirmed = await postSns(web, endpoint.id, signSns(subscription, '1'));
    expect(confirmed.status, confirmed.text).to.equal(200);
    expect(sns.hits).to.include(`/confirm?Token=${token}`);
    const receipts = await admin.get(`/api/workspaces/${workspaceId}/channels/email/feedback/receipts`);
    expect(receipts.status, receipts.text).to.equal(200);
    expect(receipts.body.data.map((r: { outcome: string }) => r.outcome)).to.deep.equal([
      'subscription_confirmed',
    ]);
  });

  it('records a notification about an unknown message and answers 200; soft bounces suppress after FEEDBACK_SOFT_BOUNCE_LIMIT', async () => {
    const { client, base, workspaceId, endpoint, email, contactId, message } = await sentMessage(
      sink,
      'ses',
      { topicArn: TOPIC_ARN },
    );
    const unknown = signSns(
      snsNotification(sns, bounce('Permanent', { messageId: 'nobody-knows' }, email)),
      '2',
    );
    const answered = await postSns(web, endpoint.id, unknown);
    expect(answered.status, answered.text).to.equal(200);
    expect(answered.body.events[0]).to.include({ outcome: 'unknown_message', messageId: null });
    expect(await countRows('email_feedback_events', workspaceId)).to.equal(1);

    // Three soft bounces (the default limit) of three messages in a row suppress the address.
    const messages = [message];
    for (let i = 0; i < 2; i++) {
      const sent = await sendHi(client, base, contactId);
      messages.push(await waitForStatus(client, base, sent.body.id, 'sent'));
    }
    for (const [i, each] of messages.entries()) {
      const soft = signSns(
        snsNotification(sns, bounce('Transient', { messageId: each.providerId }, email)),
        '2',
      );
      expect((await postSns(web, endpoint.id, soft)).status).to.equal(200);
      const subscriptions = await client.get(`${base}/contacts/${contactId}/subscriptions`);
      const state = subscriptions.body.subscriptions.find((s: { channel: string }) => s.channel === 'email');
      expect(state.status, `after soft bounce ${i + 1}`).to.equal(i < 2 ? 'subscribed' : 'unsubscribed');
    }
    const softEvents = await outgoing(workspaceId, 'message.bounced');
    expect(softEvents.map((e) => e.bounceType)).to.deep.equal(['soft', 'soft', 'soft']);
    const first = await client.get(`${base}/messages/${message.id}`);
    expect(first.body.status).to.equal('sent');
  });
});
