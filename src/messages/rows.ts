// The shape of a message row, as every query of messages reads it: its channel (one of the
// registry's), its template, and what a send rendered (the registry's union).
import { z } from 'zod';
import {
  CHANNEL_NAMES,
  type ChannelName,
  channelNamed,
  MessageTemplate,
  RenderedContent,
} from '../channels/index.ts';
import { sql } from '../db/pool.ts';

export { MessageTemplate, RenderedContent };

export const CHANNELS = CHANNEL_NAMES;
export type Channel = ChannelName;
export const MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'failed', 'bounced', 'suppressed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** The line a list shows: an email's subject, a push's title (a Telegram text has none). */
export function renderedSubjectOf(content: RenderedContent): string | null {
  return channelNamed(content.channel).subjectOf(content);
}

export const MessageRow = z.object({
  workspace_id: z.string(),
  id: z.string(),
  contact_id: z.string(),
  channel: z.enum(CHANNELS),
  campaign_id: z.string().nullable(),
  enrollment_id: z.string().nullable(),
  step_key: z.string().nullable(),
  status: z.enum(MESSAGE_STATUSES),
  template: MessageTemplate,
  data: z.record(z.string(), z.unknown()),
  trigger_event_id: z.string().nullable(),
  ignore_unsubscribe: z.boolean(),
  /** Never tracked, whatever the switches: it asks for consent (a double opt-in confirmation). */
  untracked: z.boolean(),
  recipient: z.string().nullable(),
  rendered_at: z.string().nullable(),
  rendered_subject: z.string().nullable(),
  provider_id: z.string().nullable(),
  provider_response: z.string().nullable(),
  error: z.string().nullable(),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  rate_slot_at: z.string().nullable(),
  lease_until: z.string().nullable(),
  created_at: z.string(),
  sent_at: z.string().nullable(),
  updated_at: z.string(),
});
export type MessageRow = z.infer<typeof MessageRow>;

export const columns = sql.fragment`
  workspace_id, id, contact_id, channel, campaign_id, enrollment_id, step_key, status, template, data,
  trigger_event_id, ignore_unsubscribe, untracked, recipient, rendered_at, rendered_subject, provider_id, provider_response, error,
  attempts, next_attempt_at, rate_slot_at, lease_until, created_at, sent_at, updated_at
`;

export const MessageDetailRow = MessageRow.extend({ rendered: RenderedContent.nullable() });
