// SendGrid (events signed with a local P-256 key) and Postmark (basic auth or a secret header)
// feedback, and the endpoints' configuration under …/channels/email/feedback.
import { expect } from 'chai';
import { messagingWorkspace, outgoing, suiteSink, waitForStatus } from '../messages/support.ts';
import { Client } from '../support/client.ts';
import { expectProblem, keyClient } from '../support/factories.ts';
import { configureFeedback, sendgridKeys, sentMessage, timelineOf } from './support.ts';

const SIGNATURE = 'X-Twilio-Email-Event-Webhook-Signature';
const TIMESTAMP = 'X-Twilio-Email-Event-Webhook-Timestamp';
const anonymous = new Client();

describe('provider feedback: SendGrid and Postmark', () => {
  const sink = suiteSink();

  describe('SendGrid', () => {
    const keys = sendgridKeys();
    const post = (endpointId: string, body: string, headers: Record<string, string>) =>
      anonymous.request('POST', `/api/feedback/${endpointId}/sendgrid`, {
        body,
        headers: { 'content-type': 'application/json', ...headers },
      });
    const signed = (body: string) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      return { [TIMESTAMP]: timestamp, [SIGNATURE]: keys.sign(timestamp, body) };
    };

    it('applies signed events found by the custom arg and by sg_message_id; a replayed batch changes nothing', async () => {
      const { client, base, workspaceId, endpoint, email, contactId, message } = await sentMessage(
        sink,
        'sendgrid',
        {
          publicKey: keys.publicKey,
        },
      );
      const got = (await sink.received()).find((r) => r.to.includes(email))!;
      expect(JSON.parse(got.headers['x-smtpapi'])).to.deep.equal({
        unique_args: { switchboard_message_id: message.id },
      });
      const now = Math.floor(Date.now() / 1000);
      const body = JSON.stringify([
        { email, event: 'processed', sg_event_id: 'sg-p-1', timestamp: now },
        {
          email,
          event: 'delivered',
          sg_event_id: `sg-d-${message.id}`,
          switchboard_message_id: message.id,
          timestamp: now,
        },
        {
          email,
          event: 'bounce',
          type: 'bounce',
          reason: '550 5.1.1 no such user',
          sg_event_id: `sg-b-${message.id}`,
          sg_message_id: `${message.providerId}.filterdrecv-1.0`,
          timestamp: now,
        },
      ]);
      const answered = await post(endpoint.id, body, signed(body));
      expect(answered.status, answered.text).to.equal(200);
      expect(answered.body.events.map((e: { outcome: string }) => e.outcome)).to.deep.equal([
        'ignored',
        'applied',
        'applied',
      ]);
      await waitForStatus(client, base, message.id, 'bounced');
      expect(await timelineOf(client, base, message.id)).to.deep.equal([
        'queued',
        'sent',
        'delivered',
        'bounced',
      ]);
      expect(await outgoing(workspaceId, 'message.delivered')).to.deep.equal([
        { messageId: message.id, contactId, channel: 'email' },
      ]);
      expect(await outgoing(workspaceId, 'message.bounced')).to.deep.equal([
        { messageId: message.id, contactId, bounceType: 'hard' },
      ]);

      const replay = await post(endpoint.id, body, signed(body));
      expect(replay.status, replay.text).to.equal(200);
      expect(replay.body.events.map((e: { outcome: string }) => e.outcome)).to.deep.equal([
        'ignored',
        'duplicate',
        'duplicate',
      ]);
      expect(await outgoing(workspaceId, 'message.bounced')).to.have.length(1);
      expect(await outgoing(workspaceId, 'message.delivered')).to.have.length(1);
    });

    it('counts a message deferred again and again as one soft bounce towards suppression', async () => {
      const { client, base, workspaceId, endpoint, email, contactId, message } = await sentMessage(
        sink,
        'sendgrid',
        { publicKey: keys.publicKey },
      );
      const deferrals = JSON.stringify(
        [1, 2, 3, 4].map((attempt) => ({
          email,
          event: 'deferred',
          attempt: String(attempt),
          response: '451 4.7.1 try later',
          sg_event_id: `sg-def-${message.id}-${attempt}`,
          switchboard_message_id: message.id,
        })),
      );
      const answered = await post(endpoint.id, deferrals, signed(deferrals));
      expect(answered.status, answered.text).to.equal(200);
      expect(await outgoing(workspaceId, 'message.bounced')).to.have.length(4);
      const subscriptions = await client.get(`${base}/contacts/${contactId}/subscriptions`);
      const state = subscriptions.body.subscriptions.find((s: { channel: string }) => s.channel === 'email');
      expect(state.status).to.equal('subscribed');
    });

    it('refuses a missing or wrong signature, or a body changed after signing, with 401 and logs nothing', async () => {
      const { admin, workspaceId, endpoint, email, message } = await sentMessage(sink, 'sendgrid', {
        publicKey: keys.publicKey,
      });
      const body = JSON.stringify([
        { email, event: 'spamreport', sg_event_id: 'sg-s-1', switchboard_message_id: message.id },
      ]);
      expectProblem(await post(endpoint.id, body, {}), 401);
      const other = sendgridKeys();
      const timestamp = String(Math.floor(Date.now() / 1000));
      expectProblem(
        await post(endpoint.id, body, { [TIMESTAMP]: timestamp, [SIGNATURE]: other.sign(timestamp, body) }),
        401,
      );
      expectProblem(await post(endpoint.id, body.replace('spamreport', 'delivered'), signed(body)), 401);
      const receipts = await admin.get(`/api/workspaces/${workspaceId}/channels/email/feedback/receipts`);
      expect(receipts.body.total).to.equal(0);
      expect(await outgoing(workspaceId, 'message.complained')).to.deep.equal([]);
      // Signed but not an array of events: kept in the log, answered 400.
      const notArray = '{"event":"delivered"}';
      expectProblem(await post(endpoint.id, notArray, signed(notArray)), 400);
      const logged = await admin.get(
        `/api/workspaces/${workspaceId}/channels/email/feedback/receipts?provider=sendgrid`,
      );
      expect(logged.body.data.map((r: { responseStatus: number }) => r.responseStatus)).to.deep.equal([400]);
    });
  });

  describe('Postmark', () => {
    const auth = (user: string, password: string) =>
      `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const post = (endpointId: string, body: object, headers: Record<string, string>) =>
      anonymous.request('POST', `/api/feedback/${endpointId}/postmark`, { json: body, headers });

    it('takes a spam complaint with basic auth (Metadata echoes our id) and refuses wrong credentials', async () => {
      const { client, base, workspaceId, endpoint, email, contactId, message } = await sentMessage(
        sink,
        'postmark',
        {
          basicAuth: { username: 'postmark', password: 'pm-secret-1' },
        },
      );
      const got = (await sink.received()).find((r) => r.to.includes(email))!;
      expect(got.headers['x-pm-metadata-switchboard_message_id']).to.equal(message.id);
      const complaint = {
        RecordType: 'SpamComplaint',
        ID: Date.now(),
        Type: 'SpamComplaint',
        TypeCode: 100001,
        MessageID: 'pm-not-stored',
        Metadata: { switchboard_message_id: message.id },
        Email: email,
      };
      expectProblem(await post(endpoint.id, complaint, {}), 401);
      expectProblem(await post(endpoint.id, complaint, { authorization: auth('postmark', 'wrong') }), 401);
      expect(await outgoing(workspaceId, 'message.complained')).to.deep.equal([]);

      const answered = await post(endpoint.id, complaint, { authorization: auth('postmark', 'pm-secret-1') });
      expect(answered.status, answered.text).to.equal(200);
      expect(await outgoing(workspaceId, 'message.complained')).to.deep.equal([
        { messageId: message.id, contactId },
      ]);
      const detail = await client.get(`${base}/messages/${message.id}`);
      expect(detail.body.timeline.at(-1).type).to.equal('complained');
    });

    it('takes a hard bounce with a secret header, found by the provider id; an unknown message is recorded and answered 200', async () => {
      const { client, base, workspaceId, endpoint, email, contactId, message } = await sentMessage(
        sink,
        'postmark',
        {
          header: { name: 'X-Feedback-Secret', value: 'hdr-secret' },
        },
      );
      const bounce = (messageId: string) => ({
        RecordType: 'Bounce',
        ID: Math.floor(Math.random() * 1e9),
        Type: 'HardBounce',
        TypeCode: 1,
        MessageID: messageId,
        Email: email,
        Description: 'The server was unable to deliver your message',
        Inactive: true,
      });
      expectProblem(
        await post(endpoint.id, bounce(message.providerId), { 'x-feedback-secret': 'nope' }),
        401,
      );
      const answered = await post(endpoint.id, bounce(message.providerId), {
        'x-feedback-secret': 'hdr-secret',
      });
      expect(answered.status, answered.text).to.equal(200);
      await waitForStatus(client, base, message.id, 'bounced');
      expect(await outgoing(workspaceId, 'message.bounced')).to.deep.equal([
        { messageId: message.id, contactId, bounceType: 'hard' },
      ]);
      const unknown = await post(endpoint.id, bounce('not-a-message-of-ours'), {
        'x-feedback-secret': 'hdr-secret',
      });
      expect(unknown.status, unknown.text).to.equal(200);
      expect(unknown.body.events[0]).to.include({ outcome: 'unknown_message', messageId: null });
    });
  });

  describe('configuration', () => {
    it('saves each provider, never shows a secret, keeps a left-out password for the same user, and deletes', async () => {
      const { admin, workspaceId } = await messagingWorkspace();
      const base = `/api/workspaces/${workspaceId}/channels/email/feedback`;
      const saved = await configureFeedback(admin, workspaceId, 'postmark', {
        basicAuth: { username: 'pm', password: 'first-secret' },
      });
      expect(saved).to.deep.include({
        provider: 'postmark',
        basicAuth: { username: 'pm', passwordSet: true },
        header: null,
      });
      expect(saved.url).to.match(new RegExp(`/api/feedback/${saved.id}/postmark$`));
      expect(JSON.stringify(saved)).not.to.contain('first-secret');
      const kept = await configureFeedback(admin, workspaceId, 'postmark', { basicAuth: { username: 'pm' } });
      expect(kept.id).to.equal(saved.id);
      const post = (password: string) =>
        anonymous.request('POST', `/api/feedback/${saved.id}/postmark`, {
          json: { RecordType: 'Open' },
          headers: { authorization: `Basic ${Buffer.from(`pm:${password}`).toString('base64')}` },
        });
      expect((await post('first-secret')).status).to.equal(200);
      const renamed = await admin.put(`${base}/postmark`, { basicAuth: { username: 'someone-else' } });
      expectProblem(renamed, 400);
      expect(renamed.body.errors[0].path).to.equal('body.basicAuth.password');

      const badKey = await admin.put(`${base}/sendgrid`, { publicKey: 'bm90IGEga2V5' });
      expect(expectProblem(badKey, 400) && badKey.body.errors[0].path).to.equal('body.publicKey');
      const badArn = await admin.put(`${base}/ses`, { topicArn: 'not-an-arn' });
      expect(expectProblem(badArn, 400) && badArn.body.errors[0].path).to.equal('body.topicArn');
      await configureFeedback(admin, workspaceId, 'ses', {
        topicArn: 'arn:aws:sns:us-east-1:123456789012:bounces',
      });

      const list = await admin.get(base);
      expect(list.body.data.map((e: { provider: string }) => e.provider)).to.deep.equal(['postmark', 'ses']);
      expect((await admin.delete(`${base}/postmark`)).status).to.equal(204);
      expectProblem(await admin.delete(`${base}/postmark`), 404);
      expectProblem(await post('first-secret'), 404);
    });

    it('is another workspace’s “not found”, and needs channels:write to change', async () => {
      const one = await messagingWorkspace();
      const other = await messagingWorkspace();
      await configureFeedback(one.admin, one.workspaceId, 'ses', {
        topicArn: 'arn:aws:sns:us-east-1:123456789012:b',
      });
      expectProblem(await other.admin.get(`/api/workspaces/${one.workspaceId}/channels/email/feedback`), 404);
      const { client: reader } = await keyClient(one.admin, one.workspaceId, ['channels:read']);
      expect(
        (await reader.get(`/api/workspaces/${one.workspaceId}/channels/email/feedback`)).status,
      ).to.equal(200);
      expectProblem(
        await reader.delete(`/api/workspaces/${one.workspaceId}/channels/email/feedback/ses`),
        403,
      );
    });
  });
});
