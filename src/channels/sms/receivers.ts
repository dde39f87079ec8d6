// What the provider posts back: delivery reports (each message's StatusCallback) and the messages
// people send to the number (STOP, START and their synonyms). Both are form-encoded, signed with
// X-Twilio-Signature (checked before anything in them is believed) and answered 204: the provider
// sends its own confirmation of STOP and START (Advanced Opt-Out), so we add no reply. Message rows
// and subscriptions change through the effects the messages feature hands in.
import { z } from 'zod';
import type { AppContext } from '../../core/context.ts';
import { PayloadTooLargeError, UnauthorizedError } from '../../core/errors.ts';
import { OversizedBody } from '../../http/malformedJson.ts';
import { access, defineRoute } from '../../http/route.ts';
import { SecretDecryptionError } from '../../secrets/index.ts';
import { findChannelConfig } from '../queries.ts';
import type { ChannelEffects } from '../types.ts';
import { toE164 } from './phone.ts';
import { openAuthToken, SMS_INBOUND_PATH, SMS_STATUS_PATH, type SmsSettings, smsUrl } from './service.ts';
import { isTwilioSignature } from './signature.ts';

const SIGNATURE_HEADER = 'X-Twilio-Signature';

/** Opt-out and opt-in keywords: the whole message, any case (the provider's defaults). */
export const STOP_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'] as const;
export const START_WORDS = ['START', 'YES', 'UNSTOP'] as const;

const Params = z.object({ workspaceId: z.string().min(1).max(100) });

const StatusReport = z.object({
  MessageSid: z.string().min(1).max(64),
  MessageStatus: z.string().max(32),
  ErrorCode: z.string().max(16).optional(),
});

const InboundMessage = z.object({
  From: z.string().min(1).max(64),
  Body: z.string().max(2000).default(''),
});

const FormBody = z.unknown().openapi({
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'application/x-www-form-urlencoded',
} as never);

/** The form the provider posted, its signature checked against the channel's auth token. */
async function signedForm(
  app: AppContext,
  workspaceId: string,
  path: string,
  req: {
    body: unknown;
    rawBody?: Buffer;
    get(name: string): string | undefined;
  },
): Promise<{ params: Record<string, string>; settings: SmsSettings }> {
  if (req.body instanceof OversizedBody) throw new PayloadTooLargeError('the inbound limit');
  const params = Object.fromEntries(new URLSearchParams(req.rawBody?.toString('utf8') ?? ''));
  const refused = new UnauthorizedError(
    `No SMS channel here, or \`${SIGNATURE_HEADER}\` is missing or wrong.`,
  );
  const row = await findChannelConfig(app.db, workspaceId, 'sms');
  if (!row) throw refused;
  let authToken: string;
  try {
    authToken = openAuthToken(row);
  } catch (error) {
    if (error instanceof SecretDecryptionError) throw refused;
    throw error;
  }
  // The URL the provider signed is the one we gave it: PUBLIC_URL and this path.
  const url = smsUrl(app.config, path, workspaceId);
  if (!isTwilioSignature(authToken, url, params, req.get(SIGNATURE_HEADER))) throw refused;
  return { params, settings: row.settings as SmsSettings };
}

/** A refusal of the provider's form fields, after the signature: the provider sent something we do not read. */
function fields<S extends z.ZodType>(schema: S, params: Record<string, string>): z.output<S> | null {
  const parsed = schema.safeParse(params);
  return parsed.success ? parsed.data : null;
}

const errors = {
  401: `No SMS channel here, or \`${SIGNATURE_HEADER}\` is missing or wrong.`,
  413: 'The body is over the inbound size limit.',
};

/** delivered → `message.delivered`; undelivered or failed → the message fails with the provider's ErrorCode. */
async function receiveStatus(app: AppContext, effects: ChannelEffects, workspaceId: string, req: never) {
  const { params } = await signedForm(app, workspaceId, SMS_STATUS_PATH, req);
  const report = fields(StatusReport, params);
  if (!report) return;
  const message = { workspaceId, channel: 'sms', providerId: report.MessageSid };
  const status = report.MessageStatus.toLowerCase();
  if (status === 'delivered') {
    await app.db.transaction((tx) => effects.report(tx, message, { status: 'delivered', provider: 'sms' }));
  } else if (status === 'undelivered' || status === 'failed') {
    const error = `${status}${report.ErrorCode ? ` (error ${report.ErrorCode})` : ''}`;
    await app.db.transaction((tx) =>
      effects.report(tx, message, { status: 'failed', provider: 'sms', error }),
    );
  }
  // queued, sending, sent …: the provider's own steps before the answer that matters.
}

/** STOP and its synonyms unsubscribe every contact at the number from SMS; START and its synonyms bring them back. */
async function receiveInbound(app: AppContext, effects: ChannelEffects, workspaceId: string, req: never) {
  const { params, settings } = await signedForm(app, workspaceId, SMS_INBOUND_PATH, req);
  const inbound = fields(InboundMessage, params);
  if (!inbound) return;
  const word = inbound.Body.trim().toUpperCase();
  const stop = (STOP_WORDS as readonly string[]).includes(word);
  const start = (START_WORDS as readonly string[]).includes(word);
  if (!stop && !start) return;
  const from = toE164(inbound.From, settings.defaultRegion);
  if (!from) return;
  await app.db.transaction(async (tx) => {
    for (const contactId of await effects.contactsAt(tx, workspaceId, 'sms', from)) {
      if (stop) await effects.unsubscribe(tx, workspaceId, contactId, 'sms');
      else await effects.resubscribe(tx, workspaceId, contactId, 'sms');
    }
  });
}

type Receive = (app: AppContext, effects: ChannelEffects, workspaceId: string, req: never) => Promise<void>;

/** A public, signed, form-encoded receiver, answered 204. */
function receiverRoute(
  effects: ChannelEffects,
  spec: { path: string; operationId: string; summary: string; description: string; receive: Receive },
) {
  return defineRoute({
    method: 'post',
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: ['Channels'],
    access: access.public,
    params: Params,
    requestHeaders: z.object({ [SIGNATURE_HEADER]: z.string().optional() }),
    body: FormBody,
    responses: { 204: { description: 'Received' } },
    errors,
    handler: async ({ app, params, req }) => {
      await spec.receive(app, effects, params.workspaceId, req as never);
      return { status: 204 };
    },
  });
}

export function smsReceivers(effects: ChannelEffects) {
  return [
    receiverRoute(effects, {
      path: SMS_STATUS_PATH,
      operationId: 'sms.status.receive',
      summary: 'Receive an SMS delivery report (the StatusCallback of each message sent)',
      description:
        `Form-encoded (MessageSid, MessageStatus, ErrorCode …), signed in \`${SIGNATURE_HEADER}\` with the ` +
        'auth token (HMAC-SHA1 over the URL and the sorted parameters, compared in constant time). ' +
        '`delivered` records the delivery and emits `message.delivered`; `undelivered` and `failed` fail the ' +
        'message with the ErrorCode and emit `message.failed`; other statuses are acknowledged.',
      receive: receiveStatus,
    }),
    receiverRoute(effects, {
      path: SMS_INBOUND_PATH,
      operationId: 'sms.inbound.receive',
      summary: 'Receive a text sent to the SMS number (STOP and START)',
      description:
        `Form-encoded (From, To, Body …), signed like delivery reports. A body of ${STOP_WORDS.join(', ')} ` +
        '(any case) unsubscribes every contact at the sender’s number from SMS (`unsubscribe.sms`, and exits ' +
        `the campaigns that can no longer reach them); ${START_WORDS.join(', ')} lifts their own SMS opt-outs. ` +
        'Other texts are acknowledged.',
      receive: receiveInbound,
    }),
  ];
}
