// A message's content as its contact would get it, for previews: rendered by its channel's builder
// exactly as at send time (same variables, same escaping, the same http(s) check on push URLs) but
// without tracking and without filling the template cache. Throws a TemplateError.
import type { RenderedContent } from '../channels/index.ts';
import type { AppContext } from '../core/context.ts';
import { buildOutgoing } from './build.ts';
import type { DeliveryContext } from './contextQueries.ts';
import type { MessageRow } from './rows.ts';

export type RenderedMessage = RenderedContent;

export function renderMessage(
  app: AppContext,
  message: MessageRow,
  context: DeliveryContext,
): RenderedMessage {
  return buildOutgoing(app, message, context, true).rendered;
}
