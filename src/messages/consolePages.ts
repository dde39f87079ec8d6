// The messages section of the console: the log at /app/{ws}/messages (filtered by channel, status,
// campaign, step and contact; newest first, keyset paged) and a message's page (what was rendered
// and sent, its timeline with each tracking hit's class, the provider's response, why it was
// suppressed). Both read with the services of GET …/messages and GET …/messages/{id}; any member may
// read messages there, so any member sees these pages (they change nothing).
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { CHANNEL_REGISTRY, type ChannelDefinition, channelNamed } from '../channels/index.ts';
import {
  type BadgeKind,
  badge,
  type ConsolePages,
  emptyState,
  html,
  type Interpolation,
  keyValueList,
  pageOf,
  pager,
  pageWorkspace,
  readCursor,
  type SafeHtml,
  sendPage,
  table,
  time,
  withQuery,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import type { MessageFilter } from './queries.ts';
import { MESSAGE_STATUSES, type MessageRow, type MessageStatus, type RenderedContent } from './rows.ts';
import { getMessageDetail, listMessagesByKeyset } from './service.ts';
import { type HitClass, type HitRow, hitClass } from './timelineQueries.ts';

const PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

/** Rows per page: `?limit=` from 1 to 200 (the API's bounds), else 50. */
function pageSizeOf(query: Query): number {
  const value = str(query, 'limit');
  const size = /^\d{1,3}$/.test(value) ? Number(value) : PAGE_SIZE;
  return size >= 1 && size <= MAX_PAGE_SIZE ? size : PAGE_SIZE;
}

export const STATUS_KINDS: Record<MessageStatus, BadgeKind> = {
  queued: 'info',
  sending: 'info',
  sent: 'success',
  failed: 'danger',
  bounced: 'danger',
  suppressed: 'warning',
};

const CLASS_KINDS: Record<HitClass, BadgeKind> = { human: 'success', proxy: 'info', machine: 'neutral' };
const CLASS_LABELS: Record<HitClass, string> = {
  human: 'human',
  proxy: 'privacy proxy',
  machine: 'machine',
};

type Query = Record<string, unknown>;

const str = (query: Query, name: string) =>
  typeof query[name] === 'string' ? (query[name] as string).trim().slice(0, 200) : '';

/** The list's filter as the query string gives it; a channel or status not offered is ignored. */
export function filterOf(query: Query): MessageFilter {
  const channel = str(query, 'channel');
  const status = str(query, 'status');
  return {
    channel: CHANNEL_REGISTRY.some((c) => c.name === channel)
      ? (channel as MessageFilter['channel'])
      : undefined,
    status: (MESSAGE_STATUSES as readonly string[]).includes(status) ? (status as MessageStatus) : undefined,
    campaignId: str(query, 'campaign') || undefined,
    stepKey: str(query, 'step') || undefined,
    contactId: str(query, 'contact') || undefined,
  };
}

function option(value: string, label: string, selected: string): SafeHtml {
  return html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
}

function filterForm(req: Request, base: string): SafeHtml {
  const q = req.query as Query;
  const channels = CHANNEL_REGISTRY.map((c: ChannelDefinition) => option(c.name, c.title, str(q, 'channel')));
  const statuses = MESSAGE_STATUSES.map((s) => option(s, s, str(q, 'status')));
  return html`<form method="get" action="${base}/messages" class="panel filters" role="search">
<div><label for="channel">Channel</label><select id="channel" name="channel">${option('', 'Any channel', str(q, 'channel'))}${channels}</select></div>
<div><label for="status">Status</label><select id="status" name="status">${option('', 'Any status', str(q, 'status'))}${statuses}</select></div>
<div><label for="campaign">Campaign id</label><input id="campaign" name="campaign" value="${str(q, 'campaign')}" autocomplete="off" spellcheck="false"></div>
<div><label for="step">Step</label><input id="step" name="step" value="${str(q, 'step')}" placeholder="3.then.0" autocomplete="off" spellcheck="false"></div>
<div><label for="contact">Contact id</label><input id="contact" name="contact" value="${str(q, 'contact')}" autocomplete="off" spellcheck="false"></div>
<div><button type="submit">Filter</button> <a href="${base}/messages">Clear</a></div>
</form>`;
}

const SNIPPET = 80;

/**
 * The line a list shows for a message: its subject as sent, else its subject template, else the
 * start of its text template (channels without a subject), else its id.
 */
function subjectLine(row: MessageRow): Interpolation {
  if (row.rendered_subject) return row.rendered_subject;
  if (row.template.subject) return html`<span class="muted">${row.template.subject}</span>`;
  const text = row.template.text?.trim();
  if (text) return text.length > SNIPPET ? `${text.slice(0, SNIPPET)}…` : text;
  return html`<code>${row.id}</code>`;
}

export function messageLink(base: string, row: MessageRow): SafeHtml {
  return html`<a href="${base}/messages/${encodeURIComponent(row.id)}">${subjectLine(row)}</a>`;
}

function filtered(filter: MessageFilter): boolean {
  return Object.values(filter).some((value) => value !== undefined);
}

async function listPage(app: AppContext, req: Request, res: Response) {
  const workspace = pageWorkspace(res);
  const base = workspacePath(res);
  const filter = filterOf(req.query as Query);
  const after = readCursor(req.query.after, z.tuple([z.string()]));
  const size = pageSizeOf(req.query as Query);
  const rows = await listMessagesByKeyset(app.db, workspace.id, filter, {
    afterId: after?.[0] ?? null,
    limit: size + 1,
  });
  const { shown, next } = pageOf(rows, size, (row) => [row.id]);
  const here = req.originalUrl;
  const list =
    shown.length === 0
      ? filtered(filter) || after
        ? emptyState(
            'No message matches',
            html`Change the filters, or <a href="${base}/messages">show every message</a>.`,
          )
        : emptyState(
            'No messages yet',
            html`Messages appear when a campaign sends or you send one with <code>POST /api/workspaces/${workspace.id}/messages</code>.`,
          )
      : table({
          caption: 'Messages, newest first',
          columns: [
            { label: 'Created' },
            { label: 'Channel' },
            { label: 'Subject' },
            { label: 'Recipient' },
            { label: 'Status' },
            { label: 'Campaign step' },
          ],
          rows: shown.map((row) => [
            time(row.created_at),
            channelNamed(row.channel).title,
            messageLink(base, row),
            html`<a href="${base}/contacts/${encodeURIComponent(row.contact_id)}">${row.recipient ?? row.contact_id}</a>`,
            badge(row.status, STATUS_KINDS[row.status]),
            row.campaign_id
              ? html`<a href="${withQuery(`${base}/messages`, { campaign: row.campaign_id, step: row.step_key })}">${row.step_key ?? row.campaign_id}</a>`
              : html`<span class="muted">one-off</span>`,
          ]),
        });
  sendPage(res, {
    title: 'Messages',
    section: 'messages',
    body: html`${filterForm(req, base)}
<div id="results">${list}
${pager({ first: after ? withQuery(here, {}) : null, next: next && withQuery(here, { after: next }) })}</div>`,
  });
}

/** camelCase → "Camel case": a rendered field's name as a label. */
function fieldLabel(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The HTML part in a frame that runs nothing: `sandbox` with no allow-scripts (and no
 * allow-same-origin), the HTML escaped into `srcdoc`. The frame also inherits the console's CSP,
 * and its own policy loads no image but data: ones, so opening the page fetches no tracking pixel
 * (it would count as an open) and no remote image.
 */
function htmlFrame(markup: string): SafeHtml {
  const policy = html`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">`;
  return html`<iframe class="message-frame" sandbox="" referrerpolicy="no-referrer" title="HTML part as sent" srcdoc="${`${policy}${markup}`}"></iframe>
<p class="muted">Shown without scripts and without remote images: opening this page is not an open.</p>`;
}

/** What the channel rendered, field by field as the registry's schema has it (no channel named). */
function renderedParts(rendered: RenderedContent): SafeHtml {
  const fields = Object.entries(rendered).filter(([name, value]) => name !== 'channel' && value != null);
  const pairs: [string, Interpolation][] = [];
  const blocks: SafeHtml[] = [];
  for (const [name, value] of fields) {
    if (name === 'html' && typeof value === 'string') {
      blocks.push(html`<h3>HTML</h3>${htmlFrame(value)}`);
    } else if (typeof value === 'string' && (name === 'text' || value.includes('\n') || value.length > 120)) {
      blocks.push(html`<h3>${fieldLabel(name)}</h3><pre class="message-text">${value}</pre>`);
    } else if (typeof value === 'object') {
      pairs.push([fieldLabel(name), html`<pre>${JSON.stringify(value, null, 2)}</pre>`]);
    } else {
      pairs.push([fieldLabel(name), String(value)]);
    }
  }
  return html`${pairs.length > 0 ? keyValueList(pairs) : ''}${blocks}`;
}

type TimelineEntry = { type: string; detail: Record<string, unknown>; occurred_at: string };

function hitBadge(hit: z.infer<typeof HitRow>): SafeHtml {
  const kind = hitClass(hit);
  return badge(CLASS_LABELS[kind], CLASS_KINDS[kind]);
}

/** The detail of a timeline entry in words: its fields as text, a hit's class as a badge. */
function entryDetail(entry: TimelineEntry, hits: Map<string, z.infer<typeof HitRow>>): SafeHtml {
  const hit = typeof entry.detail.hitId === 'string' ? hits.get(entry.detail.hitId) : undefined;
  const rest = Object.entries(entry.detail).filter(([name]) => name !== 'hitId');
  const words = rest.map(
    ([name, value]) =>
      html`<span class="detail"><span class="muted">${fieldLabel(name)}:</span> ${typeof value === 'string' ? value : JSON.stringify(value)}</span> `,
  );
  return html`${hit ? hitBadge(hit) : ''} ${words}`;
}

function timelineTable(timeline: readonly TimelineEntry[], hits: Map<string, z.infer<typeof HitRow>>) {
  if (timeline.length === 0) return html`<p class="muted">Nothing happened to it yet.</p>`;
  return table({
    caption: 'Timeline, oldest first',
    columns: [{ label: 'When' }, { label: 'What' }, { label: 'Detail' }],
    rows: timeline.map((entry) => [time(entry.occurred_at), entry.type, entryDetail(entry, hits)]),
  });
}

function hitsTable(hits: readonly z.infer<typeof HitRow>[]): SafeHtml {
  if (hits.length === 0) return html`<p class="muted">No open or click was recorded.</p>`;
  return table({
    caption: 'Tracking hits, oldest first',
    columns: [
      { label: 'When' },
      { label: 'Kind' },
      { label: 'Class' },
      { label: 'Link' },
      { label: 'Why not a person' },
      { label: 'User agent' },
    ],
    rows: hits.map((hit) => [
      time(hit.occurred_at),
      hit.kind,
      hitBadge(hit),
      hit.url ? html`<code class="url">${hit.url}</code>` : '',
      hit.reasons.join(', '),
      hit.user_agent ? html`<code>${hit.user_agent}</code>` : '',
    ]),
  });
}

/** Why a message did not go, when it did not: the error the send recorded. */
function outcomeNotice(message: MessageRow): SafeHtml {
  if (!message.error) return html``;
  const what = message.status === 'suppressed' ? 'Suppressed, not sent' : `Not delivered (${message.status})`;
  return html`<p class="flash flash-error" role="note"><strong>${what}:</strong> ${message.error}</p>`;
}

async function messagePage(app: AppContext, req: Request, res: Response) {
  const base = workspacePath(res);
  const { message, timeline, hits } = await getMessageDetail(
    app.db,
    pageWorkspace(res).id,
    String(req.params.messageId),
  );
  const hitsById = new Map(hits.map((hit) => [hit.id, hit]));
  const facts = keyValueList([
    ['Status', badge(message.status, STATUS_KINDS[message.status])],
    ['Channel', channelNamed(message.channel).title],
    [
      'Contact',
      html`<a href="${base}/contacts/${encodeURIComponent(message.contact_id)}">${message.contact_id}</a> · <a href="${withQuery(`${base}/messages`, { contact: message.contact_id })}">its messages</a>`,
    ],
    ['Recipient', message.recipient],
    [
      'Campaign',
      message.campaign_id
        ? html`<a href="${base}/campaigns/${encodeURIComponent(message.campaign_id)}">${message.campaign_id}</a> · <a href="${withQuery(`${base}/messages`, { campaign: message.campaign_id })}">its messages</a>`
        : 'none (a one-off message)',
    ],
    [
      'Step',
      message.campaign_id && message.step_key
        ? html`<a href="${withQuery(`${base}/messages`, { campaign: message.campaign_id, step: message.step_key })}">${message.step_key}</a>`
        : null,
    ],
    ['Created', time(message.created_at)],
    ['Rendered', message.rendered_at ? time(message.rendered_at) : null],
    ['Sent', message.sent_at ? time(message.sent_at) : null],
    ['Attempts', String(message.attempts)],
    ['Next attempt', message.next_attempt_at ? time(message.next_attempt_at) : null],
    ['Provider id', message.provider_id ? html`<code>${message.provider_id}</code>` : null],
    ['Provider response', message.provider_response ? html`<pre>${message.provider_response}</pre>` : null],
    ['Error', message.error],
    ['Id', html`<code>${message.id}</code>`],
  ]);
  sendPage(res, {
    title: message.rendered_subject || message.template.subject || `Message ${message.id}`,
    section: 'messages',
    crumbs: [{ label: 'Messages', href: `${base}/messages` }],
    body: html`${outcomeNotice(message)}
<section class="panel" aria-labelledby="facts"><h2 id="facts">Delivery</h2>${facts}</section>
<section class="panel" aria-labelledby="content"><h2 id="content">What was sent</h2>${
      message.rendered
        ? renderedParts(message.rendered)
        : html`<p class="muted">Nothing was rendered: the message was not sent yet, was suppressed, or its template failed.</p>`
    }</section>
<section class="panel" aria-labelledby="timeline"><h2 id="timeline">Timeline</h2>${timelineTable(timeline, hitsById)}</section>
<section class="panel" aria-labelledby="hits"><h2 id="hits">Opens and clicks</h2>${hitsTable(hits)}</section>`,
  });
}

function install(app: AppContext, router: Router) {
  router.get('/messages', (req, res) => listPage(app, req, res));
  router.get('/messages/:messageId', (req, res) => messagePage(app, req, res));
}

export function messageConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: 'messages', label: 'Messages', key: 'm', order: 50 }],
    install: (router) => install(app, router),
  };
}
