import { looksLikeId } from '../db/ids.ts';

// A provider's report, brought to one shape: what happened (kind), to which message (our id when the
// provider echoed it, else the provider's own id for it) and the provider's event id, which makes a
// replay a no-op. `kind: null` is an event we record but do not act on (opens, clicks, processed…).
export type FeedbackKind = 'hard_bounce' | 'soft_bounce' | 'complaint' | 'delivery';

export type FeedbackEvent = {
  /** The provider's id for this event; null when it gave none (then it cannot be deduplicated or applied). */
  eventId: string | null;
  /** The provider's own name for what happened, for the receipt log. */
  type: string;
  kind: FeedbackKind | null;
  email: string | null;
  messageId: string | null;
  providerId: string | null;
  reason: string | null;
};

/** A string field of an untrusted object, or null (bounded, so a log entry stays small). */
export function text(value: unknown, max = 1000): string | null {
  if (typeof value === 'string' && value.length > 0) return value.slice(0, max);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** What a provider echoed as our message id, when it has the shape of one. */
export function ourMessageId(value: unknown): string | null {
  const id = text(value, 100);
  return id && looksLikeId('message', id) ? id : null;
}
