// The email channel: its campaign step, its rendering (subject, preheader, HTML with tracking, text),
// and the send through the workspace's SMTP server.
import { z } from 'zod';
import { looksLikeHtml, parsesAsTemplate, renderEmail, withPreheader } from '../../templates/index.ts';
import { findChannelConfig } from '../queries.ts';
import { RequiredText, stepText } from '../stepFields.ts';
import type { BuildKit, ChannelDefinition, EmailMessage, TransactionalContent } from '../types.ts';
import { emailFeedbackRoutes } from './feedbackRoutes.ts';
import { emailChannelRoutes } from './routes.ts';
import { sendEmail } from './send.ts';
import { emailSettings } from './settings.ts';
import { closeTransport } from './transport.ts';

const EmailStep = z.strictObject({
  type: z.literal('send'),
  channel: z.literal('email'),
  subject: RequiredText(998),
  body: RequiredText(100_000).openapi({
    description:
      'A Liquid template: HTML, or plain text when it has no HTML tag (sent as the text part, with an ' +
      'HTML part that shows it as written: escaped, line breaks kept, web addresses as links).',
  }),
  preheader: stepText(200)
    .optional()
    .openapi({
      description:
        'A Liquid template like the subject: the line inboxes show after the subject, sent as the ' +
        'hidden first element of the HTML body.',
    }),
});

const RenderedEmail = z
  .object({
    channel: z.literal('email'),
    subject: z.string(),
    preheader: z.string().optional().openapi({ description: 'Absent when the message has none.' }),
    html: z.string().openapi({
      description:
        'The HTML part with its preheader first; as sent, with tracked links and the open pixel (a preview has no tracking).',
    }),
    text: z.string().openapi({ description: "The text part: the step's own, or one made from the HTML." }),
  })
  .openapi('RenderedEmail');

/** A one-off email: its subject, and HTML, text or both. */
const EmailContent = z.strictObject({
  subject: z.string().min(1).max(998).superRefine(parsesAsTemplate('text')),
  html: z.string().min(1).max(500_000).superRefine(parsesAsTemplate('html')).optional(),
  text: z.string().min(1).max(500_000).superRefine(parsesAsTemplate('text')).optional(),
});

const emailTransactional: TransactionalContent<typeof EmailContent> = {
  fields: EmailContent,
  problems: (body) =>
    body.html === undefined && body.text === undefined
      ? [{ path: 'html', message: 'give html, text or both' }]
      : [],
  // Without HTML the text is the body: the text part verbatim, and an HTML part that shows it as
  // written (the templates kit's textToHtml).
  templateOf: (body) => ({ subject: body.subject, html: body.html ?? null, text: body.text ?? null }),
};

export const emailChannel: ChannelDefinition<EmailMessage, typeof EmailStep, typeof RenderedEmail> = {
  name: 'email',
  title: 'Email',
  isConfigured: async (app, workspaceId) => (await findChannelConfig(app.db, workspaceId, 'email')) !== null,
  send: sendEmail,
  close: closeTransport,
  step: EmailStep,
  // The body is HTML, or text when it has no markup (sent as written, see the templates kit's textToHtml).
  templateOf: (step) => ({
    subject: step.subject,
    ...(looksLikeHtml(step.body) ? { html: step.body } : { text: step.body }),
    ...(step.preheader !== undefined ? { preheader: step.preheader } : {}),
  }),
  templateFields: (step) => [
    ['subject', 'text', step.subject],
    ['preheader', 'text', step.preheader],
    ['body', 'html', step.body],
  ],
  transactional: emailTransactional,
  testSend: {
    label: 'Email address',
    inputType: 'email',
    address: z.string().trim().max(320).pipe(z.email('must be an email address')),
    // No List-Unsubscribe: the message reaches someone who is not the contact it was rendered for.
    retarget: (message, to) => ({
      ...message,
      to,
      subject: `[Test] ${message.subject}`,
      unsubscribe: undefined,
    }),
  },
  rendered: RenderedEmail,
  subjectOf: (rendered) => rendered.subject,
  addressOf: (context) => context.email ?? undefined,
  unreachable: (context) => (context.email ? null : 'the contact has no email address'),
  build: buildEmail,
  unsubscribeEvent: {
    contactId: z.string(),
    channel: z.string().openapi({ example: 'email' }),
    messageId: z.string().nullable(),
  },
  settings: emailSettings,
  routes: [...emailChannelRoutes, ...emailFeedbackRoutes],
};

/**
 * Message-ID, X-Switchboard-Message-ID and the List-Unsubscribe headers are the sender's to write.
 * Tracking goes into the HTML after rendering (the text part, made from the HTML as written, keeps
 * the plain links and never shows the honeypot); the preheader after tracking, so that it is the
 * body's first element, before the honeypot.
 */
function buildEmail(kit: BuildKit) {
  const { message, unsubscribe } = kit;
  const { subject, html, text, preheader } = renderEmail(message.template, kit.variables(), kit.cacheKey);
  const sent = { subject, html: withPreheader(kit.track(html), preheader), text };
  return {
    outgoing: {
      channel: 'email' as const,
      id: message.id,
      to: kit.context.email!,
      ...sent,
      unsubscribe: { url: unsubscribe.url, token: unsubscribe.token },
    },
    rendered: { channel: 'email' as const, ...sent, ...(preheader ? { preheader } : {}) },
  };
}
