// /app/{ws}/settings/channels (src/console/ kit): one panel per channel of the registry, rendered
// from what its definition declares (ChannelSettings in types.ts: the form's fields, what is stored,
// the facts to copy, its actions such as a test send), so a new channel needs no code here. Secrets
// are write-only: a "set" badge and an empty field that replaces the stored value when filled (left
// empty, the stored one is kept). Reading is for any member (channels:read); saving and actions
// for an ADMIN, as the API; each save goes through the channel's API schema and service.
import type { Request, Response } from 'express';
import {
  badge,
  type ConsolePages,
  consoleForm,
  copyButton,
  csrfField,
  formText,
  groupTabs,
  html,
  isAdmin,
  keyValueList,
  pageWorkspace,
  redirectWithFlash,
  requireAdmin,
  type SafeHtml,
  sendPage,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { AppError, NotFoundError, ValidationError } from '../core/errors.ts';
import { CHANNEL_REGISTRY } from './registry.ts';
import type { ChannelAction, ChannelSettings, SettingField, SettingsInput, SettingsView } from './types.ts';

const SECTION = 'settings/channels';

/** What a panel needs of a channel: its name, title and settings (any registered channel has them). */
export type ConfigurableChannel = {
  name: string;
  title: string;
  settings: ChannelSettings;
};

/** What a panel needs of the request: the form's token, the role, where the forms post. */
export type PanelContext = { csrf: SafeHtml; admin: boolean; page: string };

const setBadge = (yes: boolean) => (yes ? badge('set', 'success') : badge('not set'));

const TYPES: Record<string, string> = { email: 'email', url: 'text', number: 'text', text: 'text' };

function hint(field: SettingField): SafeHtml {
  return field.hint ? html` <span class="muted">(${field.hint})</span>` : html``;
}

function secretInput(id: string, field: SettingField, view: SettingsView): SafeHtml {
  const set = view.secretsSet[field.name] ?? false;
  const keep = set
    ? `Leave empty to keep the stored ${field.label.toLowerCase()}`
    : (field.placeholder ?? '');
  const input = field.multiline
    ? html`<textarea id="${id}" name="${field.name}" rows="3" autocomplete="off" spellcheck="false" placeholder="${keep}"></textarea>`
    : html`<input id="${id}" name="${field.name}" type="password" autocomplete="new-password" placeholder="${keep}">`;
  const remove = field.removable
    ? html`<label class="check"><input type="checkbox" name="${field.name}__remove" value="yes"> Remove the stored ${field.label.toLowerCase()}</label>`
    : '';
  return html`<label for="${id}">${field.label}${hint(field)} ${setBadge(set)}</label>${input}${remove}`;
}

/** One input of the form; a MEMBER sees the values in disabled inputs, and of a secret only its badge. */
function fieldInput(prefix: string, field: SettingField, view: SettingsView, admin: boolean): SafeHtml {
  const id = `${prefix}-${field.name}`;
  const disabled = admin ? html`` : html` disabled`;
  const value = view.values[field.name] ?? '';
  if (field.kind === 'secret') {
    if (admin) return secretInput(id, field, view);
    return html`<p>${field.label}: ${setBadge(view.secretsSet[field.name] ?? false)}</p>`;
  }
  if (field.kind === 'checkbox')
    return html`<label class="check"><input type="checkbox" name="${field.name}" value="yes"${value === 'yes' ? html` checked` : ''}${disabled}> ${field.label}${hint(field)}</label>`;
  const required = field.required ? html` required` : html``;
  const placeholder = field.placeholder ? html` placeholder="${field.placeholder}"` : html``;
  const label = html`<label for="${id}">${field.label}${hint(field)}</label>`;
  if (field.kind === 'textarea')
    return html`${label}<textarea id="${id}" name="${field.name}" rows="3"${required}${placeholder}${disabled}>${value}</textarea>`;
  const numeric = field.kind === 'number' ? html` inputmode="numeric"` : html``;
  return html`${label}<input id="${id}" name="${field.name}" value="${value}" type="${TYPES[field.kind ?? 'text'] ?? 'text'}" autocomplete="off"${numeric}${required}${placeholder}${disabled}>`;
}

/** The fields in order, consecutive fields of one group in a fieldset with its legend. */
function fieldsOf(prefix: string, fields: readonly SettingField[], view: SettingsView, admin: boolean) {
  const out: SafeHtml[] = [];
  for (let i = 0; i < fields.length; ) {
    const group = fields[i]!.group;
    let end = i + 1;
    while (group && end < fields.length && fields[end]!.group === group) end++;
    const inputs = fields.slice(i, end).map((field) => fieldInput(prefix, field, view, admin));
    out.push(group ? html`<fieldset><legend>${group}</legend>${inputs}</fieldset>` : html`${inputs}`);
    i = end;
  }
  return out;
}

const EMPTY_VIEW: SettingsView = { configured: true, values: {}, secretsSet: {}, facts: [] };

function actionForm(channel: ConfigurableChannel, action: ChannelAction, context: PanelContext) {
  const prefix = `${channel.name}-${action.name}`;
  return html`<form method="post" action="${context.page}/${channel.name}/${action.name}" class="stack" aria-labelledby="${prefix}-title">${context.csrf}
<input type="hidden" name="_back" value="${context.page}">
<h3 id="${prefix}-title">${action.title}</h3>
${fieldsOf(prefix, action.fields, EMPTY_VIEW, true)}
<div><button type="submit">${action.button}</button></div></form>`;
}

/** A channel's panel: its state, the facts to copy, its form and (configured, for an ADMIN) its actions. */
export function channelPanel(
  channel: ConfigurableChannel,
  view: SettingsView,
  context: PanelContext,
): SafeHtml {
  const { settings } = channel;
  const title = `${channel.name}-title`;
  const facts = view.facts.length
    ? keyValueList(
        view.facts.map((fact): [string, SafeHtml | string] => [
          fact.label,
          fact.copy ? copyButton(fact.value, 'Copy') : fact.value,
        ]),
      )
    : '';
  const actions =
    view.configured && context.admin
      ? (settings.actions ?? []).map((action) => actionForm(channel, action, context))
      : [];
  return html`<section class="panel" aria-labelledby="${title}">
<h2 id="${title}">${channel.title} ${view.configured ? badge('configured', 'success') : badge('not configured')}</h2>
<p class="muted">${settings.intro}</p>${facts}
<form method="post" action="${context.page}/${channel.name}" class="stack">${context.csrf}
<input type="hidden" name="_back" value="${context.page}">
${fieldsOf(channel.name, settings.fields, view, context.admin)}
${context.admin ? html`<div><button type="submit">Save ${channel.title} settings</button></div>` : ''}</form>
${actions}</section>`;
}

/** The posted form read field by field; a secret left empty is kept, its "remove" box drops it. */
export function settingsInput(req: Request): SettingsInput {
  return {
    text: (name) => formText(req, name).trim(),
    checked: (name) => formText(req, name) === 'yes',
    secret(name) {
      const value = formText(req, name);
      if (value.trim() !== '') return value;
      return formText(req, `${name}__remove`) === 'yes' ? null : undefined;
    },
  };
}

async function channelsPage(app: AppContext, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const context: PanelContext = {
    csrf: csrfField(res),
    admin: isAdmin(res),
    page: `${workspacePath(res)}/${SECTION}`,
  };
  const channels: readonly ConfigurableChannel[] = CHANNEL_REGISTRY;
  const views = await Promise.all(channels.map((channel) => channel.settings.load(app, workspaceId)));
  sendPage(res, {
    title: 'Channels',
    section: SECTION,
    body: html`${groupTabs(res, 'Settings', SECTION)}
${channels.map((channel, i) => channelPanel(channel, views[i]!, context))}`,
  });
}

function channelOf(req: Request): ConfigurableChannel {
  const channel = CHANNEL_REGISTRY.find((c) => c.name === req.params.channel);
  if (!channel) throw new NotFoundError('Channel');
  return channel;
}

/**
 * A provider's refusal (a 502 for the API: a bad token, a refused recipient) is an answer for the
 * person, shown as an error flash; the schema's refusals are flashed by consoleErrors with their
 * fields' names.
 */
async function answered(req: Request, res: Response, what: string, run: () => Promise<string>) {
  const page = `${workspacePath(res)}/${SECTION}`;
  let message: string;
  try {
    message = await run();
  } catch (error) {
    const refusal = error instanceof AppError && ![403, 404].includes(error.status) ? error : null;
    if (!refusal || refusal instanceof ValidationError) throw error;
    return redirectWithFlash(req, res, page, `${what}: ${refusal.message}`, 'error');
  }
  await redirectWithFlash(req, res, page, message);
}

async function save(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const channel = channelOf(req);
  await answered(req, res, `${channel.title} channel not saved`, () =>
    channel.settings.save(app, pageWorkspace(res).id, settingsInput(req)),
  );
}

async function act(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const channel = channelOf(req);
  const action = channel.settings.actions?.find((a) => a.name === req.params.action);
  if (!action) throw new NotFoundError('Channel action');
  await answered(req, res, `${action.title}: not done`, () =>
    action.run(app, pageWorkspace(res).id, settingsInput(req)),
  );
}

export function channelConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: SECTION, label: 'Channels', group: 'Settings', order: 82 }],
    install(router) {
      router.get(`/${SECTION}`, (_req, res) => channelsPage(app, res));
      router.post(`/${SECTION}/:channel`, consoleForm(), (req, res) => save(app, req, res));
      router.post(`/${SECTION}/:channel/:action`, consoleForm(), (req, res) => act(app, req, res));
    },
  };
}
