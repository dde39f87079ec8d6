// The boundary every channel sits behind (ChannelDefinition): what it sends, how a campaign step
// of it is written and rendered, whom it reaches, its pace and its receivers. Delivery, campaigns,
// previews, reports and the OpenAPI document iterate the registry (registry.ts) instead of naming
// channels; a channel never writes message rows or emits webhooks itself (its receivers are handed
// the effects that do).
import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import type { Db } from '../db/pool.ts';
import type { RouteDefinition } from '../http/route.ts';
import type { TemplateField, TemplateKind, TemplateVariables } from '../templates/index.ts';
import '../core/zodOpenApi.ts';

/** Where an SMTP exchange failed ('config': before any connection, e.g. no channel configured). */
export type SendStage = 'config' | 'connect' | 'tls' | 'auth' | 'mail-from' | 'rcpt-to' | 'data';

export type EmailMessage = {
  channel: 'email';
  /** Our message id: sent as X-Switchboard-Message-ID and as the local part of Message-ID. */
  id: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  /**
   * RFC 8058 one-click unsubscribe: `url` (https) becomes List-Unsubscribe with `mailto` beside it
   * when given, plus List-Unsubscribe-Post. Both headers are covered by the DKIM signature. Without
   * `mailto`, the channel's `unsubscribeMailto` setting makes one from `token`.
   */
  unsubscribe?: { url: string; mailto?: string; token?: string };
};

/** What the service worker (/sdk/sw.js) receives, as JSON encrypted to each subscription. */
export type PushNotification = {
  title: string;
  body: string;
  /** Opened on click. */
  url?: string;
  icon?: string;
  /** Where the service worker acknowledges delivery and clicks, with `ackToken` (signed, per message). */
  ackUrl: string;
  ackToken: string;
};

export type PushUrgency = 'very-low' | 'low' | 'normal' | 'high';

/** A notification to every browser the contact has subscribed to push from. */
export type PushMessage = {
  channel: 'push';
  /** Our message id, also in the payload (`messageId`). */
  id: string;
  contactId: string;
  notification: PushNotification;
  /** How long the push service keeps it for a browser that is offline. */
  ttlSeconds: number;
  urgency: PushUrgency;
  /** A newer message with the same topic replaces an undelivered older one (≤ 32 base64url characters). */
  topic?: string;
};

export type TelegramMessage = {
  channel: 'telegram';
  /** Our message id (for logs; Telegram has no place for it). */
  id: string;
  /** The contact's linked chat. */
  chatId: number;
  text: string;
  parseMode?: 'HTML' | 'MarkdownV2';
};

/** What every channel's message has: its channel, and our message id. */
export type AnyMessage = { channel: string; id: string };

export type SendFailure = {
  /**
   * retry: try again later (4xx, network); permanent: will not work as configured (other 5xx,
   * authentication, TLS, channel missing); bounce: the address does not exist (5xx at RCPT TO);
   * unsubscribe: the recipient is gone for this channel (push subscription expired, bot blocked);
   * unconfigured: this process lacks the key that sealed the channel's secrets (MissingKeyError),
   * the process's fault, not the message's: retried without spending one of its attempts.
   */
  status: 'retry' | 'permanent' | 'bounce' | 'unsubscribe' | 'unconfigured';
  error: string;
  stage?: SendStage;
  /** A retry the provider asked to be made no sooner than this (Telegram's `retry_after`). */
  retryAfterMs?: number;
};

/**
 * `recipient`: the address the channel sent to when it differs from the contact's as stored (a
 * phone number normalised to E.164); the message records it.
 */
export type SendOutcome =
  | { status: 'sent'; providerId: string; response: string; recipient?: string }
  | (SendFailure & { recipient?: string });

export interface Channel<M extends AnyMessage = AnyMessage> {
  readonly name: M['channel'];
  /** Whether the workspace has configured this channel. */
  isConfigured(app: AppContext, workspaceId: string): Promise<boolean>;
  /** Sends one message; never throws for a provider's answer, only classifies it. */
  send(app: AppContext, workspaceId: string, message: M): Promise<SendOutcome>;
  /** Releases what the channel holds for the workspace (pooled connections), or for all. */
  close(workspaceId?: string): Promise<void>;
}

export const PUSH_URGENCIES = ['very-low', 'low', 'normal', 'high'] as const;

/** A push step's notification options (its title is `subject`, its body `text`). */
export const PushOptions = z.object({
  url: z.string().nullish(),
  icon: z.string().nullish(),
  urgency: z.enum(PUSH_URGENCIES).nullish(),
  ttlSeconds: z.number().int().nullish(),
  topic: z.string().nullish(),
});

/**
 * What a message is rendered from, kept on its row: the same fields for every channel (a channel's
 * `templateOf` fills those it uses), so a message row needs no per-channel column.
 */
export const MessageTemplate = z.object({
  subject: z.string(),
  /** An email without HTML (text only) has none: its HTML part shows the text as written. */
  html: z.string().nullish(),
  text: z.string().nullish(),
  /** An email's preheader (plain text, a template like the subject). */
  preheader: z.string().nullish(),
  push: PushOptions.optional(),
  /** A Telegram step's parse mode (its text is in `text`). */
  parseMode: z.enum(['HTML', 'MarkdownV2']).nullish(),
});
export type MessageTemplate = z.infer<typeof MessageTemplate>;

/** The contact as a send sees it: its addresses on each channel, and what tracking it allows. */
export type SendContext = {
  email: string | null;
  phone: string | null;
  telegram_chat_id: number | null;
  has_push_subscription: boolean;
  awaiting_consent: boolean;
  track_opens: boolean;
  track_clicks: boolean;
};

/** The message being built, as the builder reads it. */
export type BuildMessage = {
  id: string;
  workspace_id: string;
  contact_id: string;
  template: MessageTemplate;
  untracked: boolean;
};

/**
 * What the messages feature hands a channel's builder: the message and its contact, and the
 * rendering it owns (variables, the per-step template cache, tracking, signed links). A preview
 * gets the same kit with `preview` set: nothing cached, nothing tracked.
 */
export type BuildKit = {
  app: AppContext;
  message: BuildMessage;
  context: SendContext;
  preview: boolean;
  /** Renders one template field; a TemplateError names the field. */
  text(field: TemplateField, source: string, kind?: TemplateKind): string;
  /** Renders a click or icon URL; one that is not http(s) is a TemplateError. */
  url(field: TemplateField, source: string): string;
  /** Every variable a template sees (contact, workspace, campaign, event, unsubscribe_url …). */
  variables(): TemplateVariables;
  /** The key campaign templates are cached under (undefined: one-off, or a preview). */
  cacheKey: string | undefined;
  /** The message's signed unsubscribe link and its token. */
  unsubscribe: { url: string; token: string };
  /** Adds open and click tracking where the contact and the workspace allow it (never in a preview). */
  track(html: string): string;
  /** A token signed for the message (push acknowledgements). */
  messageToken(kind: 'push'): string;
  /** PUBLIC_URL without its trailing slash. */
  publicBase: string;
};

/** What a step's send produces: what goes to the provider, and what the row keeps and shows. */
export type Built<M, R> = { outgoing: M; rendered: R };

/** A template field of a step, for the check at save: its request field, how it renders, its source. */
export type StepTemplateField = [field: string, kind: TemplateKind, value: string | undefined];

/**
 * What a channel's receivers may change, handed in by the messages feature (which owns message rows,
 * subscriptions and their webhooks). All run in the caller's transaction.
 */
export type ChannelEffects = {
  /** Contacts reached at this address on the channel: messages sent to it, or the contact's own field. */
  contactsAt(db: Db, workspaceId: string, channel: string, address: string): Promise<readonly string[]>;
  /** An opt-out the recipient sent through the provider (`unsubscribe.<channel>`); false: already out. */
  unsubscribe(db: Db, workspaceId: string, contactId: string, channel: string): Promise<boolean>;
  /** The recipient's own opt-outs of the channel (and of everything) lifted; false: none to lift. */
  resubscribe(db: Db, workspaceId: string, contactId: string, channel: string): Promise<boolean>;
  /** A provider's delivery report for the message it knows as `providerId`; false: no such message. */
  report(
    db: Db,
    message: { workspaceId: string; channel: string; providerId: string },
    report: { status: 'delivered'; provider: string } | { status: 'failed'; provider: string; error: string },
  ): Promise<boolean>;
};

/** A channel's one-off messages (POST …/messages): their content fields, checked and made a template. */
export type TransactionalContent<F extends z.ZodObject = z.ZodObject> = {
  /** The content fields (strict), beside contactId or email, channel, data and ignoreUnsubscribe. */
  fields: F;
  /** Problems across the fields (a path under `body`, and what is wrong). */
  problems?(body: z.output<F>): { path: string; message: string }[];
  templateOf(body: z.output<F>): MessageTemplate;
};

/**
 * One input of a channel's configuration form (the console's settings/channels page renders it;
 * the channel names no HTML). A `secret` is write-only: never shown back, a "set" badge beside an
 * empty password input; left empty it keeps what is stored.
 */
export type SettingField = {
  name: string;
  label: string;
  kind?: 'text' | 'email' | 'url' | 'number' | 'textarea' | 'checkbox' | 'secret';
  /** The legend of the group of fields it is shown in (consecutive fields share one). */
  group?: string;
  /** Shown beside the label, muted: what it is for, what form it takes. */
  hint?: string;
  placeholder?: string;
  required?: boolean;
  /** A secret that may be removed: a "Remove the stored …" checkbox beside it. */
  removable?: boolean;
  /** Several lines (a PEM key): a textarea, which keeps the line breaks a password input drops. */
  multiline?: boolean;
};

/** What the form of a channel (or of one of its actions) posted, read field by field. */
export type SettingsInput = {
  /** A text field as typed, trimmed; '' when absent. */
  text(name: string): string;
  checked(name: string): boolean;
  /** A secret field: the new value, null to remove the stored one, undefined to keep it. */
  secret(name: string): string | null | undefined;
};

/** What the page shows of a channel's configuration: never a secret's value. */
export type SettingsView = {
  configured: boolean;
  /** The value of each field that is not a secret (a checkbox: 'yes' or ''). */
  values: Record<string, string>;
  /** Whether a value is stored for each secret field. */
  secretsSet: Record<string, boolean>;
  /** Read-only facts beside the form: a public key, the URLs to give the provider. */
  facts: { label: string; value: string; copy?: boolean }[];
};

/** A one-off operation on a configured channel (a test send), with its own small form. */
export type ChannelAction = {
  name: string;
  title: string;
  button: string;
  fields: readonly SettingField[];
  /** What the flash says when it went; a provider's refusal is thrown (an AppError). */
  run(app: AppContext, workspaceId: string, input: SettingsInput): Promise<string>;
};

/**
 * How a channel is configured from the console: its form's fields, what is stored, and the save
 * that goes through the channel's API schema and service (its audit entry included). The console
 * iterates the registry, so a new channel's form needs no console code.
 */
export type ChannelSettings = {
  /** One sentence above the form: what the channel needs. */
  intro: string;
  fields: readonly SettingField[];
  load(app: AppContext, workspaceId: string): Promise<SettingsView>;
  /** Saves the form (the API's schema refuses as it would a PUT); returns what the flash says. */
  save(app: AppContext, workspaceId: string, input: SettingsInput): Promise<string>;
  actions?: readonly ChannelAction[];
};

/**
 * A campaign step's test send from the console's template editor: the step rendered for a contact,
 * then sent to an address typed there instead of the contact's, marked as a test. No message row
 * is made, so nothing counts in a report and nothing is tracked.
 */
export type TestSend<M extends AnyMessage = AnyMessage> = {
  /** What the address is, for the form's label ("Email address"). */
  label: string;
  /** The input's type, for the keyboard a phone shows. */
  inputType: 'email' | 'tel';
  /** The address as typed, checked (a 400 names what is wrong). */
  address: z.ZodType<string, string>;
  /** The built message re-addressed to `to` and marked as a test. */
  retarget(message: M, to: string): M;
};

/**
 * Everything about one channel. `M` is what it sends, `S` its campaign send step, `R` what a send
 * rendered (kept on the message, shown by the API and by a step preview).
 */
export interface ChannelDefinition<
  M extends AnyMessage = AnyMessage,
  S extends z.ZodObject = z.ZodObject,
  R extends z.ZodObject = z.ZodObject,
> extends Channel<M> {
  /** How the documentation names it: 'Email', 'SMS' (schema names: `Rendered<title>`). */
  readonly title: string;
  /** The campaign send step: a strict object with `type: 'send'` and `channel: <name>`. */
  readonly step: S;
  /** The step as a message template (kept on the row). */
  templateOf(step: z.output<S>): MessageTemplate;
  /** The step's template fields, parsed at save so a broken one is a 400, not a failed send. */
  templateFields(step: z.output<S>): StepTemplateField[];
  /** What a send rendered, `channel` first: shown by GET …/messages/{id} and by a step preview. */
  readonly rendered: R;
  /** The line a message list shows (an email's subject), or null. */
  subjectOf(rendered: z.output<R>): string | null;
  /** The contact's address on the channel, recorded on the message; undefined: none, or not one address. */
  addressOf(context: SendContext): string | undefined;
  /** Why a contact cannot be reached on the channel (no address), or null. */
  unreachable(context: SendContext): string | null;
  /** Renders the message (throws a TemplateError): what goes to the provider and what the row keeps. */
  build(kit: BuildKit): Built<M, z.output<R>>;
  /** Its one-off messages (POST …/messages); absent: campaign sends only. */
  readonly transactional?: TransactionalContent;
  /** Its test sends to a typed address; absent: it reaches people by no address one can type. */
  readonly testSend?: TestSend<M>;
  /** Messages per second per workspace when the workspace sets none (a provider's limit); absent: none. */
  readonly defaultRatePerSecond?: number;
  /** The fields of its `unsubscribe.<name>` webhook event. */
  readonly unsubscribeEvent: Record<string, z.ZodType>;
  /** Its configuration routes (…/channels/<name>), and those providers call (webhooks). */
  readonly routes: readonly RouteDefinition[];
  /** Its configuration form in the console (settings/channels). */
  readonly settings: ChannelSettings;
  /** Routes that change messages or subscriptions (delivery reports, inbound opt-outs), given the effects. */
  receivers?(effects: ChannelEffects): RouteDefinition[];
}
