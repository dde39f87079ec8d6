// The web push channel: its campaign step, its notification (title, body, URLs, the signed
// acknowledgement), and the encrypted send to each of the contact's browsers.
import { z } from 'zod';
import { findChannelConfig } from '../queries.ts';
import { HttpUrl, RequiredText } from '../stepFields.ts';
import { type BuildKit, type ChannelDefinition, PUSH_URGENCIES, type PushMessage } from '../types.ts';
import { closePushAgent } from './agent.ts';
import { pushChannelRoutes } from './routes.ts';
import { sendPush } from './send.ts';
import { pushSettings } from './settings.ts';

const PushStep = z.strictObject({
  type: z.literal('send'),
  channel: z.literal('push'),
  title: RequiredText(100),
  body: RequiredText(500),
  url: HttpUrl.optional().openapi({ description: 'Opened when the notification is clicked.' }),
  icon: HttpUrl.optional(),
  urgency: z.enum(PUSH_URGENCIES).optional().openapi({
    description: 'How soon the push service should wake the device (default normal).',
  }),
  ttlSeconds: z.number().int().min(0).max(2_419_200).optional().openapi({
    description: 'How long the push service keeps it for an offline browser (default PUSH_TTL_MS).',
  }),
  topic: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1 to 32 letters, digits, - or _')
    .optional()
    .openapi({ description: 'A newer undelivered notification with the same topic replaces this one.' }),
});

const RenderedPush = z
  .object({
    channel: z.literal('push'),
    title: z.string(),
    body: z.string(),
    url: z.string().optional().openapi({ description: 'Opened on click; absent when the step has none.' }),
    icon: z.string().optional().openapi({ description: 'Absent when the step has none.' }),
  })
  .openapi('RenderedPush');

export const pushChannel: ChannelDefinition<PushMessage, typeof PushStep, typeof RenderedPush> = {
  name: 'push',
  title: 'Push',
  isConfigured: async (app, workspaceId) => (await findChannelConfig(app.db, workspaceId, 'push')) !== null,
  send: sendPush,
  // One agent serves every workspace: closing for one workspace keeps it.
  close: async (workspaceId) => (workspaceId === undefined ? closePushAgent() : undefined),
  step: PushStep,
  // The title and body in the template's subject and text (html too, for older readers of the row).
  templateOf: (step) => {
    const { url, icon, urgency, ttlSeconds, topic } = step;
    return {
      subject: step.title,
      html: step.body,
      text: step.body,
      push: { url, icon, urgency, ttlSeconds, topic },
    };
  },
  templateFields: (step) => [
    ['title', 'text', step.title],
    ['body', 'text', step.body],
  ],
  rendered: RenderedPush,
  subjectOf: (rendered) => rendered.title,
  // Push goes to each of the contact's browsers: no one address.
  addressOf: () => undefined,
  unreachable: (context) => (context.has_push_subscription ? null : 'the contact has no push subscription'),
  build: buildPush,
  unsubscribeEvent: { contactId: z.string(), channel: z.string().openapi({ example: 'push' }) },
  settings: pushSettings,
  routes: pushChannelRoutes,
};

/** The step's title, body and URLs rendered as plain text; the send encrypts it to each browser. */
function buildPush(kit: BuildKit) {
  const { app, message } = kit;
  const { subject, text, html, push = {} } = message.template;
  const notification = {
    title: kit.text('title', subject),
    body: kit.text('body', text ?? html ?? ''),
    ...(push.url ? { url: kit.url('url', push.url) } : {}),
    ...(push.icon ? { icon: kit.url('icon', push.icon) } : {}),
  };
  const outgoing: PushMessage = {
    channel: 'push',
    id: message.id,
    contactId: message.contact_id,
    notification: {
      ...notification,
      ackUrl: `${kit.publicBase}/api/public/push/ack`,
      ackToken: kit.messageToken('push'),
    },
    ttlSeconds: push.ttlSeconds ?? Math.floor(app.config.PUSH_TTL_MS / 1000),
    urgency: push.urgency ?? 'normal',
    ...(push.topic ? { topic: push.topic } : {}),
  };
  return { outgoing, rendered: { channel: 'push' as const, ...notification } };
}
