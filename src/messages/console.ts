// The contact page's panels of the messages feature (src/contacts/consolePanels.ts):
// subscriptions per channel, editable (the same service as PUT …/contacts/{id}/subscriptions: an
// opt-out emits its event and exits campaigns that only send on that channel), and the latest
// messages sent to the contact, each linked to its page (consolePages.ts), with the full log filtered
// to the contact a link away.
import type { Request, Response, Router } from 'express';
import { channelNamed } from '../channels/index.ts';
import {
  badge,
  consoleForm,
  csrfField,
  formText,
  html,
  pageWorkspace,
  redirectWithFlash,
  type SafeHtml,
  table,
  time,
  withQuery,
  workspacePath,
} from '../console/index.ts';
import type { ContactPanel, ContactView } from '../contacts/index.ts';
import type { AppContext } from '../core/context.ts';
import { ValidationError } from '../core/errors.ts';
import { pageWindow } from '../db/paginate.ts';
import { messageLink, STATUS_KINDS } from './consolePages.ts';
import { toSubscriptions } from './schemas.ts';
import { getSubscriptions, listMessages, putSubscriptions } from './service.ts';
import { SUBSCRIPTION_CHANNELS } from './subscriptionQueries.ts';

/** A subscription's row label: the channel's own title (the registry's), or the global opt-out. */
function channelLabel(channel: (typeof SUBSCRIPTION_CHANNELS)[number]): string {
  return channel === 'all' ? 'Everything (global opt-out)' : channelNamed(channel).title;
}

const REASON_LABELS: Record<string, string> = {
  link: 'unsubscribe link',
  one_click: 'one-click unsubscribe',
  api: 'API or console',
  provider: 'provider',
  hard_bounce: 'hard bounce',
  complaint: 'complaint',
};

async function renderSubscriptions(view: ContactView): Promise<SafeHtml> {
  const { contactId, rows } = await getSubscriptions(view.app.db, view.workspaceId, view.contact.id);
  const { subscriptions } = toSubscriptions(contactId, rows);
  const items = subscriptions.map((s) => {
    const id = `sub-${s.channel}`;
    const reason = s.reason ? ` (${REASON_LABELS[s.reason] ?? s.reason})` : '';
    return html`<tr><th scope="row"><label for="${id}">${channelLabel(s.channel)}</label></th>
<td><select id="${id}" name="${s.channel}">
<option value="subscribed"${s.status === 'subscribed' ? html` selected` : ''}>Subscribed</option>
<option value="unsubscribed"${s.status === 'unsubscribed' ? html` selected` : ''}>Unsubscribed</option></select></td>
<td>${s.status === 'unsubscribed' ? badge(`unsubscribed${reason}`, 'warning') : badge('subscribed', 'success')}${s.changedAt ? html` <span class="muted">since ${time(s.changedAt)}</span>` : ''}</td></tr>`;
  });
  return html`<form method="post" action="${view.path}/subscriptions">${csrfField(view.res)}<input type="hidden" name="_back" value="${view.path}">
<div class="table-wrap"><table><caption class="visually-hidden">Subscriptions per channel</caption>
<thead><tr><th scope="col">Channel</th><th scope="col">Set to</th><th scope="col">Now</th></tr></thead><tbody>${items}</tbody></table></div>
<p><button type="submit">Save subscriptions</button></p></form>`;
}

async function saveSubscriptions(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const contactId = String(req.params.contactId);
  const { rows } = await getSubscriptions(app.db, workspaceId, contactId);
  const current = new Map(toSubscriptions(contactId, rows).subscriptions.map((s) => [s.channel, s.status]));
  const changes = SUBSCRIPTION_CHANNELS.flatMap((channel) => {
    const wanted = formText(req, channel);
    if (wanted === '') return [];
    if (wanted !== 'subscribed' && wanted !== 'unsubscribed')
      throw new ValidationError([{ path: channel, message: 'must be subscribed or unsubscribed' }]);
    // Only what changed: re-saving an opt-out must not emit it again or re-run its exits.
    return current.get(channel) === wanted
      ? []
      : [{ channel, status: wanted as 'subscribed' | 'unsubscribed' }];
  });
  await app.db.transaction((tx) => putSubscriptions(tx, workspaceId, contactId, changes));
  const path = `${workspacePath(res)}/contacts/${encodeURIComponent(contactId)}`;
  await redirectWithFlash(
    req,
    res,
    path,
    changes.length === 0 ? 'Subscriptions unchanged.' : 'Subscriptions saved.',
  );
}

export const subscriptionsPanel: ContactPanel = {
  id: 'subscriptions',
  title: 'Subscriptions',
  order: 40,
  render: renderSubscriptions,
  install(router: Router, app: AppContext) {
    router.post('/contacts/:contactId/subscriptions', consoleForm(), (req, res) =>
      saveSubscriptions(app, req, res),
    );
  },
};

const MESSAGES_SHOWN = 10;

async function renderMessages(view: ContactView): Promise<SafeHtml> {
  const { rows, total } = await listMessages(
    view.app.db,
    view.workspaceId,
    { contactId: view.contact.id },
    pageWindow({ page: 1, limit: MESSAGES_SHOWN }),
  );
  if (rows.length === 0) return html`<p class="muted">No message was sent to this contact yet.</p>`;
  const base = workspacePath(view.res);
  const all = withQuery(`${base}/messages`, { contact: view.contact.id });
  return html`${table({
    caption: 'Latest messages',
    columns: [
      { label: 'Created' },
      { label: 'Channel' },
      { label: 'Subject or template' },
      { label: 'Status' },
    ],
    rows: rows.map((m) => [
      time(m.created_at),
      m.channel,
      messageLink(base, m),
      badge(m.status, STATUS_KINDS[m.status]),
    ]),
  })}<p>${total > rows.length ? html`<span class="muted">The latest ${rows.length} of ${total}.</span> ` : ''}<a href="${all}">Every message to this contact</a></p>`;
}

export const messagesPanel: ContactPanel = {
  id: 'messages',
  title: 'Messages',
  order: 60,
  render: renderMessages,
};
