// The SMS channel, through a Twilio-compatible Messages API: its campaign step (a text), its
// rendering (with the encoding and the number of segments it costs), the contact's phone number
// normalised to E.164 at send, and its receivers (delivery reports, STOP and START).
import { z } from 'zod';
import type { AppContext } from '../../core/context.ts';
import { SecretDecryptionError } from '../../secrets/index.ts';
import { parsesAsTemplate } from '../../templates/index.ts';
import { findChannelConfig } from '../queries.ts';
import { RequiredText } from '../stepFields.ts';
import type { AnyMessage, BuildKit, ChannelDefinition, SendOutcome, TransactionalContent } from '../types.ts';
import { closeSmsAgent, postMessage } from './api.ts';
import { toE164 } from './phone.ts';
import { smsReceivers } from './receivers.ts';
import { smsChannelRoutes } from './routes.ts';
import { smsSegments } from './segments.ts';
import { openAuthToken, SMS_STATUS_PATH, type SmsSettings, smsUrl } from './service.ts';
import { smsSettings } from './settings.ts';

export type SmsMessage = AnyMessage & {
  channel: 'sms';
  /** The contact's phone number as stored; normalised to E.164 with the channel's region at send. */
  to: string;
  body: string;
};

const SmsStep = z.strictObject({
  type: z.literal('send'),
  channel: z.literal('sms'),
  // The provider takes at most 1,600 characters (ten or more segments).
  text: RequiredText(1600).openapi({
    description: 'A Liquid template: the text as sent. See the preview for its encoding and segments.',
  }),
});

const RenderedSms = z
  .object({
    channel: z.literal('sms'),
    text: z.string(),
    encoding: z.enum(['GSM-7', 'UCS-2']).openapi({
      description:
        'GSM-7 when every character is in the GSM alphabet, else UCS-2 (fewer characters per segment).',
    }),
    segments: z.number().int().min(1).openapi({
      description:
        'Messages the text is sent (and billed) as: GSM-7 160 in one, 153 per part; UCS-2 70, 67 per part.',
    }),
  })
  .openapi('RenderedSms');

/** A one-off SMS (POST …/messages): its text. */
const SmsContent = z.strictObject({
  text: z.string().min(1).max(1600).superRefine(parsesAsTemplate('text')),
});

const smsTransactional: TransactionalContent<typeof SmsContent> = {
  fields: SmsContent,
  templateOf: (body) => ({ subject: '', text: body.text }),
};

function buildSms(kit: BuildKit) {
  const text = kit.text('text', kit.message.template.text ?? '');
  const { encoding, segments } = smsSegments(text);
  const outgoing: SmsMessage = {
    channel: 'sms',
    id: kit.message.id,
    to: kit.context.phone ?? '',
    body: text,
  };
  return { outgoing, rendered: { channel: 'sms' as const, text, encoding, segments } };
}

async function sendSms(app: AppContext, workspaceId: string, message: SmsMessage): Promise<SendOutcome> {
  const row = await findChannelConfig(app.db, workspaceId, 'sms');
  if (!row) return { status: 'permanent', stage: 'config', error: 'channel not configured' };
  const settings = row.settings as SmsSettings;
  const to = toE164(message.to, settings.defaultRegion);
  if (!to) {
    const region = settings.defaultRegion
      ? ` (read in ${settings.defaultRegion})`
      : ' (no default region: give it with its country code)';
    return { status: 'permanent', error: `the contact's phone number is not a valid phone number${region}` };
  }
  let authToken: string;
  try {
    authToken = openAuthToken(row);
  } catch (error) {
    if (error instanceof SecretDecryptionError) return { status: 'unconfigured', error: error.message };
    throw error;
  }
  const statusCallback = smsUrl(app.config, SMS_STATUS_PATH, workspaceId);
  const answer = await postMessage(app.config, settings, authToken, {
    to,
    body: message.body,
    statusCallback,
  });
  if (answer.status !== 'sent') {
    app.log.warn({ workspaceId, messageId: message.id, status: answer.status }, 'sms not sent');
    return { ...answer, recipient: to };
  }
  return {
    status: 'sent',
    providerId: answer.sid,
    response: `${answer.providerStatus} ${answer.sid}`,
    recipient: to,
  };
}

export const smsChannel: ChannelDefinition<SmsMessage, typeof SmsStep, typeof RenderedSms> = {
  name: 'sms',
  title: 'SMS',
  isConfigured: async (app, workspaceId) => (await findChannelConfig(app.db, workspaceId, 'sms')) !== null,
  send: sendSms,
  close: async (workspaceId) => (workspaceId === undefined ? closeSmsAgent() : undefined),
  step: SmsStep,
  templateOf: (step) => ({ subject: '', text: step.text }),
  templateFields: (step) => [['text', 'text', step.text]],
  transactional: smsTransactional,
  testSend: {
    label: 'Phone number',
    inputType: 'tel',
    // Normalised to E.164 with the channel's region at send, as a contact's number is.
    address: z
      .string()
      .trim()
      .regex(/^\+?[0-9 ().-]{3,30}$/, 'must be a phone number'),
    retarget: (message, to) => ({ ...message, to, body: `[Test] ${message.body}` }),
  },
  rendered: RenderedSms,
  subjectOf: () => null,
  addressOf: (context) => context.phone ?? undefined,
  unreachable: (context) => (context.phone ? null : 'the contact has no phone number'),
  build: buildSms,
  unsubscribeEvent: { contactId: z.string(), channel: z.string().openapi({ example: 'sms' }) },
  settings: smsSettings,
  routes: smsChannelRoutes,
  receivers: smsReceivers,
};
