// What a message becomes for its channel: the messages feature hands the channel's builder
// (ChannelDefinition.build) a kit of what it owns (the template variables, the per-step template
// cache, tracking, signed links), and the builder renders what goes to the provider and what the
// row keeps. A preview gets the same kit, with nothing cached, tracked or signed for sending.
import {
  type BuildKit,
  channelNamed,
  type OutgoingMessage,
  type RenderedContent,
} from '../channels/index.ts';
import type { AppContext } from '../core/context.ts';
import {
  renderText,
  TemplateError,
  type TemplateField,
  type TemplateKind,
  type TemplateVariables,
} from '../templates/index.ts';
import type { DeliveryContext } from './contextQueries.ts';
import type { MessageRow } from './rows.ts';
import { signUnsubscribeToken, unsubscribeUrlOf } from './tokens.ts';
import { isWebUrl, publicBase, signMessageToken } from './trackingTokens.ts';
import { addTracking } from './trackLinks.ts';

export function templateVariables(
  message: MessageRow,
  context: DeliveryContext,
  unsubscribeUrl: string,
): TemplateVariables {
  // The caller's data first: the built-in names (contact, workspace, unsubscribe_url …) win.
  return {
    ...message.data,
    contact: {
      email: context.email,
      firstName: context.first_name,
      lastName: context.last_name,
      phone: context.phone,
      attributes: context.attributes,
      leadScore: context.lead_score,
    },
    ...(context.event_type
      ? { event: { type: context.event_type, metadata: context.event_metadata ?? {} } }
      : {}),
    ...(message.campaign_id && context.campaign_name
      ? { campaign: { id: message.campaign_id, name: context.campaign_name } }
      : {}),
    workspace: { name: context.workspace_name },
    message: { id: message.id },
    unsubscribe_url: unsubscribeUrl,
  };
}

/**
 * Campaign templates are parsed once per campaign step (the templates kit keys them by their
 * source too, so a changed step is parsed anew); one-off ones are not kept.
 */
function cacheKeyOf(message: MessageRow): string | undefined {
  if (!message.campaign_id) return undefined;
  return `${message.campaign_id}:${message.step_key ?? ''}`;
}

function renderField(
  field: TemplateField,
  source: string,
  variables: TemplateVariables,
  cacheKey: string | undefined,
  kind: TemplateKind = 'text',
) {
  try {
    return renderText(source, variables, cacheKey === undefined ? undefined : `${cacheKey}:${field}`, kind);
  } catch (error) {
    if (error instanceof TemplateError) error.field = field;
    throw error;
  }
}

/** A rendered click or icon URL that is not http(s) (`javascript:`…) fails the message. */
function renderUrl(
  field: TemplateField,
  source: string,
  variables: TemplateVariables,
  cacheKey: string | undefined,
) {
  const url = renderField(field, source, variables, cacheKey).trim();
  if (isWebUrl(url)) return url;
  const error = new TemplateError(
    `renders to ${JSON.stringify(url.slice(0, 100))}, not an http(s) URL`,
    1,
    1,
  );
  error.field = field;
  throw error;
}

export function buildKit(
  app: AppContext,
  message: MessageRow,
  context: DeliveryContext,
  preview: boolean,
): BuildKit {
  const token = signUnsubscribeToken(app.config, message.id);
  const unsubscribe = { url: unsubscribeUrlOf(app.config, token), token };
  const variables = templateVariables(message, context, unsubscribe.url);
  const cacheKey = preview ? undefined : cacheKeyOf(message);
  // Mail that asks for consent, or reaches someone who has not given it yet, is never tracked.
  const consented = !preview && !message.untracked && !context.awaiting_consent;
  const switches = { opens: consented && context.track_opens, clicks: consented && context.track_clicks };
  return {
    app,
    message,
    context,
    preview,
    text: (field, source, kind) => renderField(field, source, variables, cacheKey, kind),
    url: (field, source) => renderUrl(field, source, variables, cacheKey),
    variables: () => variables,
    cacheKey,
    unsubscribe,
    track: (html) => (consented ? addTracking(app.config, html, message.id, switches) : html),
    messageToken: (kind) => signMessageToken(app.config, kind, message.id),
    publicBase: publicBase(app.config),
  };
}

/** What goes to the channel, and what the row keeps of it. Throws a TemplateError. */
export function buildOutgoing(
  app: AppContext,
  message: MessageRow,
  context: DeliveryContext,
  preview = false,
): { outgoing: OutgoingMessage; rendered: RenderedContent } {
  const built = channelNamed(message.channel).build(buildKit(app, message, context, preview));
  return built as { outgoing: OutgoingMessage; rendered: RenderedContent };
}
