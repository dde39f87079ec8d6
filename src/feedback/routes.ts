// The public receivers of provider feedback, one per provider so the document can describe each
// payload, and the receipt log. The receivers read their body themselves (receive.ts): a body
// that is malformed still reaches them, and is a receipt once the sender is authenticated.
import { z } from 'zod';
import type { FeedbackProvider } from '../channels/index.ts';
import { pageWindow } from '../db/paginate.ts';
import { registry } from '../http/openapi.ts';
import { access, defineRoute } from '../http/route.ts';
import { listFeedbackReceiptPage } from './queries.ts';
import { receiveFeedback } from './receive.ts';
import {
  FeedbackParams,
  FeedbackReceivedSchema,
  ListReceiptsQuery,
  PostmarkWebhookSchema,
  ReceiptPage,
  SendgridEventsSchema,
  SnsEnvelopeSchema,
  WorkspaceParams,
} from './schemas.ts';

type Receiver = {
  provider: FeedbackProvider;
  summary: string;
  description: string;
  payload: { name: string; schema: z.ZodType };
  errors: Record<number, string>;
};

/** One public route per provider: the same receiver, a payload and refusals of its own. */
function receiverRoute(receiver: Receiver) {
  registry.register(receiver.payload.name, receiver.payload.schema);
  return defineRoute({
    method: 'post',
    path: `/api/feedback/{endpointId}/${receiver.provider}`,
    operationId: `feedback.${receiver.provider}.receive`,
    summary: receiver.summary,
    description: receiver.description,
    tags: ['Provider feedback'],
    access: access.public,
    params: FeedbackParams,
    body: z
      .unknown()
      .openapi({ allOf: [{ $ref: `#/components/schemas/${receiver.payload.name}` }] } as never),
    responses: {
      200: {
        description: 'Received and recorded (see each event’s outcome)',
        schema: FeedbackReceivedSchema,
      },
    },
    errors: receiver.errors,
    handler: async ({ app, params, req }) => ({
      status: 200,
      body: await receiveFeedback(app, {
        endpointId: params.endpointId,
        provider: receiver.provider,
        rawBody: req.rawBody ?? null,
        body: req.body,
        header: (name) => req.get(name),
      }),
    }),
  });
}

export const feedbackRoutes = [
  receiverRoute({
    provider: 'ses',
    summary: 'Receive Amazon SES bounces, complaints and deliveries from SNS',
    description:
      'SNS posts `text/plain` JSON; any content type is read. The message must come from the endpoint’s ' +
      'topic and carry a valid SNS signature (SignatureVersion 1 or 2) whose certificate is served over ' +
      'HTTPS by an SNS host. A SubscriptionConfirmation is confirmed by visiting its SubscribeURL. A ' +
      'notification repeated (same MessageId) changes nothing.',
    payload: { name: 'SnsMessage', schema: SnsEnvelopeSchema },
    errors: {
      400: 'The body is not JSON, or (once authenticated) not a readable notification.',
      401: 'Not a message signed by SNS for the configured topic. Nothing is stored.',
      404: 'No SES feedback endpoint with this id.',
      502: 'The SNS signing certificate or the SubscribeURL could not be fetched: SNS retries.',
    },
  }),
  receiverRoute({
    provider: 'sendgrid',
    summary: 'Receive SendGrid’s signed event webhook',
    description:
      'Needs `X-Twilio-Email-Event-Webhook-Signature` and `-Timestamp`: ECDSA P-256 over the timestamp and ' +
      'the raw body, checked with the configured key. The body is an array of events; one repeated (same ' +
      '`sg_event_id`) changes nothing.',
    payload: { name: 'SendgridEvents', schema: SendgridEventsSchema },
    errors: {
      400: 'Authenticated, but the body is not an array of events (kept in the receipt log).',
      401: 'No valid signature. Nothing is stored.',
      404: 'No SendGrid feedback endpoint with this id.',
    },
  }),
  receiverRoute({
    provider: 'postmark',
    summary: 'Receive Postmark’s bounce, spam complaint and delivery webhooks',
    description:
      'Authenticated by the basic-auth credentials and/or secret header configured for the endpoint. An ' +
      'event repeated (same ID) changes nothing.',
    payload: { name: 'PostmarkWebhook', schema: PostmarkWebhookSchema },
    errors: {
      400: 'Authenticated, but the body is not a Postmark webhook object (kept in the receipt log).',
      401: 'The credentials are missing or wrong. Nothing is stored.',
      404: 'No Postmark feedback endpoint with this id.',
      409: 'The stored credentials cannot be decrypted with the configured ENCRYPTION_KEY.',
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/channels/email/feedback/receipts',
    operationId: 'channels.email.feedback.receipts',
    summary: 'List what the provider feedback endpoints received, newest first',
    description: 'Every authenticated request, with what became of each provider event in it.',
    tags: ['Channels'],
    access: access.workspace('channels:read'),
    params: WorkspaceParams,
    query: ListReceiptsQuery,
    responses: { 200: { description: 'A page of receipts', schema: ReceiptPage } },
    handler: async ({ app, workspaceId, query }) => {
      const { rows, total } = await listFeedbackReceiptPage(app.db, workspaceId, query, pageWindow(query));
      const data = rows.map((row) => ({
        id: row.id,
        endpointId: row.endpoint_id,
        provider: row.provider,
        responseStatus: row.response_status,
        outcome: row.outcome,
        events: row.events,
        error: row.error,
        receivedAt: row.received_at,
      }));
      return { status: 200, body: { data, page: query.page, limit: query.limit, total } };
    },
  }),
];
