// Amazon SNS message verification, for SES feedback. SNS signs a canonical string of the envelope's
// fields with the key of a certificate it serves over HTTPS; we fetch that certificate only from
// a host SNS_CERT_HOST_PATTERN allows (sns.<region>.amazonaws.com), keep it for a day, and check
// the signature (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA). The topic is pinned before
// anything is fetched, and a subscription is confirmed only after all of that passed.
import { createVerify, type KeyObject, X509Certificate } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { UnauthorizedError } from '../core/errors.ts';

const Field = z.string().min(1).max(300_000);

export const SnsEnvelope = z.looseObject({
  Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']),
  MessageId: Field,
  TopicArn: Field,
  Subject: z.string().optional(),
  Message: z.string(),
  Timestamp: Field,
  SignatureVersion: z.enum(['1', '2']),
  Signature: Field,
  SigningCertURL: Field,
  SubscribeURL: Field.optional(),
  Token: Field.optional(),
});
export type SnsEnvelope = z.infer<typeof SnsEnvelope>;

/** The keys SNS signs, in the order it signs them; a key absent from the message is left out. */
const SIGNED_KEYS = {
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
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
} as const;

export function stringToSign(envelope: SnsEnvelope): string {
  return SIGNED_KEYS[envelope.Type]
    .filter((key) => envelope[key] !== undefined)
    .map((key) => `${key}\n${envelope[key]}\n`)
    .join('');
}

const refuse = (why: string) => new UnauthorizedError(`Not a verified SNS message: ${why}.`);

/** Thrown when the certificate could not be fetched: our side or the network, not the sender's. */
export class SnsFetchError extends Error {}

/** An https URL on a host the pattern allows (the host with its port, when one is given). */
export function trustedSnsUrl(config: Config, text: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse(`${field} is not a URL`);
  }
  if (
    url.protocol !== 'https:' ||
    url.username ||
    url.password ||
    !config.SNS_CERT_HOST_PATTERN.test(url.host)
  )
    throw refuse(`${field} is not an https URL on an SNS host`);
  return url;
}

const CERT_TTL_MS = 24 * 3600 * 1000;
const CERT_CACHE_MAX = 100;
const CERT_MAX_BYTES = 64 * 1024;
const certificates = new Map<string, { key: Promise<KeyObject>; expires: number }>();

async function fetchText(config: Config, url: URL): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(url, {
      redirect: 'error',
      signal: AbortSignal.timeout(config.SNS_FETCH_TIMEOUT_MS),
    });
    const text = await response.text();
    return { status: response.status, text: text.slice(0, CERT_MAX_BYTES + 1) };
  } catch (error) {
    throw new SnsFetchError(`could not fetch ${url.origin}${url.pathname}: ${(error as Error).message}`);
  }
}

async function loadCertificateKey(config: Config, url: URL): Promise<KeyObject> {
  const { status, text } = await fetchText(config, url);
  if (status !== 200 || text.length > CERT_MAX_BYTES)
    throw new SnsFetchError(`the signing certificate at ${url.origin}${url.pathname} answered ${status}`);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(text);
  } catch {
    throw new SnsFetchError(
      `the signing certificate at ${url.origin}${url.pathname} is not a PEM certificate`,
    );
  }
  const now = Date.now();
  if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now)
    throw refuse('the signing certificate is not valid now');
  return certificate.publicKey;
}

/** One fetch per certificate URL a day, shared by concurrent requests; a failed fetch is not kept. */
function certificateKey(config: Config, url: URL): Promise<KeyObject> {
  const cached = certificates.get(url.href);
  if (cached && cached.expires > Date.now()) return cached.key;
  if (certificates.size >= CERT_CACHE_MAX) certificates.delete(certificates.keys().next().value as string);
  const key = loadCertificateKey(config, url);
  certificates.set(url.href, { key, expires: Date.now() + CERT_TTL_MS });
  key.catch(() => certificates.delete(url.href));
  return key;
}

/** Parses and verifies an envelope for the pinned topic; throws 401 (refused) or SnsFetchError. */
export async function verifySnsEnvelope(
  config: Config,
  body: unknown,
  topicArn: string,
): Promise<SnsEnvelope> {
  const parsed = SnsEnvelope.safeParse(body);
  if (!parsed.success) throw refuse('the body is not an SNS envelope with a signature');
  const envelope = parsed.data;
  if (envelope.TopicArn !== topicArn)
    throw refuse(`TopicArn ${envelope.TopicArn} is not the topic this endpoint accepts`);
  if (envelope.Type !== 'Notification' && (!envelope.SubscribeURL || !envelope.Token))
    throw refuse('a subscription message without SubscribeURL and Token');
  const certUrl = trustedSnsUrl(config, envelope.SigningCertURL, 'SigningCertURL');
  const key = await certificateKey(config, certUrl);
  const verifier = createVerify(envelope.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  verifier.update(stringToSign(envelope), 'utf8');
  let valid = false;
  try {
    valid = verifier.verify(key, Buffer.from(envelope.Signature, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) throw refuse('the signature does not match');
  return envelope;
}

/** Confirms a verified subscription by visiting its SubscribeURL (itself held to the SNS hosts). */
export async function confirmSubscription(config: Config, envelope: SnsEnvelope): Promise<void> {
  const url = trustedSnsUrl(config, envelope.SubscribeURL ?? '', 'SubscribeURL');
  const { status } = await fetchText(config, url);
  if (status < 200 || status >= 300) throw new SnsFetchError(`SubscribeURL answered ${status}`);
}
