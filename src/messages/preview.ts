// A message's content as its contact would get it, for previews: rendered exactly as at send time
// (same variables, same escaping, the same http(s) check on push URLs) but without tracking, signed
// tokens or a chat id, and without filling the template cache. An email's preheader is in its HTML as
// it will be sent (the hidden first element of the body) and beside it. Throws a TemplateError.
import type { AppContext } from '../core/context.ts';
import { renderEmail, withPreheader } from '../templates/index.ts';
import type { DeliveryContext } from './contextQueries.ts';
import { buildPush, buildTelegram, templateVariables } from './deliver.ts';
import type { MessageRow } from './queries.ts';

export type RenderedMessage =
  | { channel: 'email'; subject: string; preheader?: string; html: string; text: string }
  | { channel: 'push'; title: string; body: string; url?: string; icon?: string }
  | { channel: 'telegram'; text: string; parseMode?: 'HTML' | 'MarkdownV2' };

export function renderMessage(
  app: AppContext,
  message: MessageRow,
  context: DeliveryContext,
): RenderedMessage {
  if (message.channel === 'push') {
    const { title, body, url, icon } = buildPush(app, message, context, false).notification;
    return { channel: 'push', title, body, ...(url ? { url } : {}), ...(icon ? { icon } : {}) };
  }
  if (message.channel === 'telegram') {
    const { text, parseMode } = buildTelegram(app, message, context, false);
    return { channel: 'telegram', text, ...(parseMode ? { parseMode } : {}) };
  }
  const { subject, html, text, preheader } = renderEmail(
    message.template,
    templateVariables(app, message, context),
  );
  return {
    channel: 'email',
    subject,
    ...(preheader ? { preheader } : {}),
    html: withPreheader(html, preheader),
    text,
  };
}
