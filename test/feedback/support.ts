// Provider feedback tests' helpers: SNS envelopes signed here with a local RSA key whose
// certificate a local HTTPS server serves (and that this process trusts for the suite), SendGrid
// events signed with a local P-256 key, and a second web process that accepts certificates from
// 127.0.0.1 instead of sns.<region>.amazonaws.com.
import { createSign, generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { expect } from 'chai';
import { makeContact, messagingWorkspace, type Sink, sendHi, waitForStatus } from '../messages/support.ts';
import { type Client, readResponse } from '../support/client.ts';
import { type SecondWeb, startSecondWeb } from '../support/server.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const KEY = readFileSync(path.join(fixtures, 'sns-test.key'));
const CERT = readFileSync(path.join(fixtures, 'sns-test.pem'), 'utf8');

export const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:ses-feedback';

/** The local stand-in for SNS: serves the signing certificate and counts visits to each path. */
export type FakeSns = {
  origin: string;
  hits: string[];
  certFetches: () => number;
  close: () => Promise<void>;
};

export async function startFakeSns(): Promise<FakeSns> {
  const hits: string[] = [];
  const server: Server = createServer({ key: KEY, cert: CERT }, (req, res) => {
    hits.push(req.url ?? '');
    if (req.url?.startsWith('/cert.pem')) return res.end(CERT);
    if (req.url?.startsWith('/confirm')) return res.end('<ConfirmSubscriptionResponse/>');
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const original = tls.getCACertificates('default');
  tls.setDefaultCACertificates([...original, CERT]);
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    certFetches: () => hits.filter((hit) => hit.startsWith('/cert.pem')).length,
    close: async () => {
      tls.setDefaultCACertificates(original);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Envelope = Record<string, string>;

const SIGNED = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: [
    'Message',
    'MessageId',
    'SubscribeURL',
    'Timestamp',
    'Token',
    'TopicArn',
    'Type',
  ],
} as const;

/** Signs the envelope as SNS does: "Key\nValue\n" for each signed key present, in order. */
export function signSns(envelope: Envelope, version: '1' | '2'): Envelope {
  const keys = SIGNED[envelope.Type as keyof typeof SIGNED];
  const canonical = keys
    .filter((key) => envelope[key] !== undefined)
    .map((key) => `${key}\n${envelope[key]}\n`)
    .join('');
  const signer = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  signer.update(canonical, 'utf8');
  return { ...envelope, SignatureVersion: version, Signature: signer.sign(KEY, 'base64') };
}

let counter = 0;

export function snsNotification(sns: FakeSns, message: object, overrides: Envelope = {}): Envelope {
  counter++;
  return {
    Type: 'Notification',
    MessageId: `sns-${Date.now()}-${counter}`,
    TopicArn: TOPIC_ARN,
    Message: JSON.stringify(message),
    Timestamp: new Date().toISOString(),
    SigningCertURL: `${sns.origin}/cert.pem`,
    UnsubscribeURL: `${sns.origin}/unsubscribe`,
    ...overrides,
  };
}

/** Posts as SNS does: JSON as text/plain, with the message type header. */
export async function postSns(web: SecondWeb, endpointId: string, envelope: Envelope) {
  const response = await fetch(`${web.url}/api/feedback/${endpointId}/ses`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': envelope.Type },
    body: JSON.stringify(envelope),
  });
  return readResponse(response);
}

/** A web process that takes SNS certificates from 127.0.0.1 (the suite's FakeSns). */
export function suiteWebTrustingLocalSns(): SecondWeb {
  const web = {} as SecondWeb;
  before(async () => {
    Object.assign(web, await startSecondWeb({ SNS_CERT_HOST_PATTERN: /^127\.0\.0\.1:\d+$/ }));
  });
  after(() => web.stop());
  return web;
}

export function sendgridKeys() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    publicKey: (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64'),
    sign: (timestamp: string, body: string) =>
      sign('sha256', Buffer.from(timestamp + body), privateKey).toString('base64'),
  };
}

export async function configureFeedback(admin: Client, workspaceId: string, provider: string, body: object) {
  const put = await admin.put(`/api/workspaces/${workspaceId}/channels/email/feedback/${provider}`, body);
  expect(put.status, put.text).to.equal(200);
  return put.body as { id: string; url: string };
}

/** A workspace with the provider's feedback endpoint configured and one email sent (through the sink) to a new contact. */
export async function sentMessage(sink: Sink, provider: string, settings: object) {
  const workspace = await messagingWorkspace(sink);
  const endpoint = await configureFeedback(workspace.admin, workspace.workspaceId, provider, settings);
  const email = `${provider}.${Date.now()}.${Math.random().toString(36).slice(2)}@example.test`;
  const contactId = await makeContact(workspace.client, workspace.base, { email });
  const sent = await sendHi(workspace.client, workspace.base, contactId);
  const message = await waitForStatus(workspace.client, workspace.base, sent.body.id, 'sent');
  return { ...workspace, endpoint, email, contactId, message };
}

/** The types of a message's timeline entries, oldest first. */
export async function timelineOf(client: Client, base: string, messageId: string): Promise<string[]> {
  const detail = await client.get(`${base}/messages/${messageId}`);
  return detail.body.timeline.map((entry: { type: string }) => entry.type);
}
