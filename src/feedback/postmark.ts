// Postmark does not sign its webhooks: each endpoint holds HTTP basic-auth credentials and/or a
// secret header, compared in constant time (digests of equal length, so neither the value nor its
// length leaks through timing). Our message id comes back in Metadata; else `MessageID` is
// Postmark's id, the one its SMTP reply gave.
import { createHash, timingSafeEqual } from 'node:crypto';
import { FEEDBACK_MESSAGE_ID, type FeedbackEndpointRow, openPostmarkCredentials } from '../channels/index.ts';
import { ConflictError, UnauthorizedError } from '../core/errors.ts';
import { SecretDecryptionError } from '../secrets/index.ts';
import { type FeedbackEvent, type FeedbackKind, ourMessageId, record, text } from './events.ts';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
const same = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

function basicCredentials(authorization: string | undefined): { username: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function credentialsOf(endpoint: FeedbackEndpointRow) {
  try {
    return openPostmarkCredentials(endpoint);
  } catch (error) {
    if (!(error instanceof SecretDecryptionError)) throw error;
    throw new ConflictError(
      'The stored credentials cannot be decrypted with the configured ENCRYPTION_KEY: PUT the endpoint again.',
      'secret-undecryptable',
    );
  }
}

export function verifyPostmark(endpoint: FeedbackEndpointRow, header: (name: string) => string | undefined) {
  const expected = credentialsOf(endpoint);
  let valid = true;
  if (expected.basicAuth) {
    const given = basicCredentials(header('authorization'));
    // Both compared whatever the first gives, so timing does not tell which one was wrong.
    const user = same(given?.username ?? '', expected.basicAuth.username);
    const password = same(given?.password ?? '', expected.basicAuth.password);
    valid = valid && given !== null && user && password;
  }
  if (expected.header) valid = same(header(expected.header.name) ?? '', expected.header.value) && valid;
  if (!valid) throw new UnauthorizedError('The credentials do not match those configured for this endpoint.');
}

const HARD = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated']);
const SOFT = new Set(['Transient', 'SoftBounce', 'DnsError', 'AutoResponder', 'Blocked']);

function classify(body: Record<string, unknown>): { eventId: string | null; kind: FeedbackKind | null } {
  const id = text(body.ID, 100);
  const messageId = text(body.MessageID, 200);
  switch (body.RecordType) {
    case 'Bounce': {
      const type = text(body.Type) ?? '';
      const kind =
        HARD.has(type) || body.Inactive === true ? 'hard_bounce' : SOFT.has(type) ? 'soft_bounce' : null;
      return { eventId: id && `bounce:${id}`, kind };
    }
    case 'SpamComplaint':
      return { eventId: id && `complaint:${id}`, kind: 'complaint' };
    case 'Delivery':
      // A delivery has no id of its own: the message and recipient make one.
      return {
        eventId: messageId && `delivery:${messageId}:${text(body.Recipient, 320) ?? ''}`,
        kind: 'delivery',
      };
    default:
      return { eventId: id && `${text(body.RecordType, 50)}:${id}`, kind: null };
  }
}

export function postmarkEvents(body: unknown): FeedbackEvent[] {
  const event = record(body);
  const { eventId, kind } = classify(event);
  return [
    {
      eventId,
      type: text(event.RecordType, 100) ?? 'unknown',
      kind,
      email: text(event.Email, 320) ?? text(event.Recipient, 320),
      messageId: ourMessageId(record(event.Metadata)[FEEDBACK_MESSAGE_ID]),
      providerId: text(event.MessageID, 200),
      reason:
        [text(event.Type), text(event.Description) ?? text(event.Details)].filter(Boolean).join(': ') || null,
    },
  ];
}
