// /app/{ws}/contacts: the contact list. A GET form (works without JavaScript; htmx swaps the
// results as you type) with the search, the filters and the sort; the rows; "N contacts" exact up to
// the cap, "more than 10,000" past it; keyset paging links.
import type { Request, Response } from 'express';
import type { z } from 'zod';
import {
  emptyState,
  formatNumber,
  html,
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
import type { ContactRow } from './queries.ts';
import {
  CONTACT_SORTS,
  COUNT_CAP,
  type ContactSearch,
  type ContactSort,
  CURSORS,
  countContactsCapped,
  cursorOf,
  searchContacts,
} from './searchQueries.ts';

const PAGE_SIZE = 50;
const SORT_LABELS: Record<ContactSort, string> = {
  newest: 'Newest first',
  oldest: 'Oldest first',
  email: 'Email, A to Z (with an email)',
};

/** A segment the filter offers: the composition hands the list in (segments sit above contacts). */
export type SegmentChoice = { id: string; name: string };
export type SegmentChoices = (app: AppContext, workspaceId: string) => Promise<SegmentChoice[]>;

type Query = Record<string, unknown>;

const str = (query: Query, name: string) =>
  typeof query[name] === 'string' ? (query[name] as string).trim() : '';

function intOrUndefined(value: string): number | undefined {
  return /^-?\d{1,9}$/.test(value) ? Number(value) : undefined;
}

/** The list's filters as the query string gives them; what does not parse is ignored, as typed. */
export function searchOf(query: Query): { search: ContactSearch; sort: ContactSort } {
  const sortName = str(query, 'sort');
  const sort = (CONTACT_SORTS as readonly string[]).includes(sortName) ? (sortName as ContactSort) : 'newest';
  const [channel, status] = str(query, 'subscription').split(':');
  const attributeName = str(query, 'attr');
  const search: ContactSearch = {
    q: str(query, 'q').slice(0, 200) || undefined,
    attribute: attributeName
      ? { name: attributeName.slice(0, 200), value: str(query, 'value').slice(0, 500) }
      : undefined,
    segmentId: str(query, 'segment') || undefined,
    scoreMin: intOrUndefined(str(query, 'scoreMin')),
    scoreMax: intOrUndefined(str(query, 'scoreMax')),
    subscription:
      ['email', 'push', 'telegram'].includes(channel) && ['subscribed', 'unsubscribed'].includes(status)
        ? { channel: channel as 'email', status: status as 'subscribed' }
        : undefined,
  };
  return { search, sort };
}

function option(value: string, label: string, selected: string): SafeHtml {
  return html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
}

function filterForm(req: Request, base: string, segments: SegmentChoice[]): SafeHtml {
  const q = req.query as Query;
  const subscriptionChoices = ['email', 'push', 'telegram'].flatMap((channel) => [
    option(`${channel}:subscribed`, `Subscribed to ${channel}`, str(q, 'subscription')),
    option(`${channel}:unsubscribed`, `Unsubscribed from ${channel}`, str(q, 'subscription')),
  ]);
  return html`<form method="get" action="${base}/contacts" class="panel filters" role="search"
 hx-get="${base}/contacts" hx-trigger="input changed delay:300ms from:#q, change" hx-target="#results" hx-select="#results" hx-swap="outerHTML" hx-push-url="true">
<div><label for="q">Search</label><input id="q" name="q" type="search" value="${str(q, 'q')}" placeholder="Email, name or phone" autocomplete="off"></div>
<div><label for="attr">Attribute</label><input id="attr" name="attr" value="${str(q, 'attr')}" placeholder="plan" autocomplete="off"></div>
<div><label for="value">Attribute value</label><input id="value" name="value" value="${str(q, 'value')}" placeholder="pro" autocomplete="off"></div>
<div><label for="segment">Segment</label><select id="segment" name="segment">${option('', 'Any segment', str(q, 'segment'))}${segments.map((s) => option(s.id, s.name, str(q, 'segment')))}</select></div>
<div><label for="scoreMin">Score from</label><input id="scoreMin" name="scoreMin" type="number" inputmode="numeric" value="${str(q, 'scoreMin')}"></div>
<div><label for="scoreMax">Score to</label><input id="scoreMax" name="scoreMax" type="number" inputmode="numeric" value="${str(q, 'scoreMax')}"></div>
<div><label for="subscription">Subscription</label><select id="subscription" name="subscription">${option('', 'Any', str(q, 'subscription'))}${subscriptionChoices}</select></div>
<div><label for="sort">Sort</label><select id="sort" name="sort">${CONTACT_SORTS.map((s) => option(s, SORT_LABELS[s], str(q, 'sort') || 'newest'))}</select></div>
<div><button type="submit">Search</button> <a href="${base}/contacts">Clear</a></div>
</form>`;
}

export function displayName(row: Pick<ContactRow, 'first_name' | 'last_name'>): string {
  return [row.first_name, row.last_name].filter(Boolean).join(' ');
}

function totalLine(count: number): string {
  if (count > COUNT_CAP) return `More than ${formatNumber(COUNT_CAP)} contacts`;
  return count === 1 ? '1 contact' : `${formatNumber(count)} contacts`;
}

function filtered(search: ContactSearch): boolean {
  return Object.values(search).some((value) => value !== undefined);
}

export async function contactListPage(
  app: AppContext,
  segments: SegmentChoices,
  req: Request,
  res: Response,
) {
  const workspace = pageWorkspace(res);
  const base = workspacePath(res);
  const { search, sort } = searchOf(req.query as Query);
  const after = readCursor(
    req.query.after,
    CURSORS[sort] as z.ZodType<(typeof CURSORS)[ContactSort]['_output']>,
  );
  const [rows, count, choices] = await Promise.all([
    searchContacts(app.db, workspace.id, search, { sort, after, limit: PAGE_SIZE + 1 }),
    countContactsCapped(app.db, workspace.id, search, sort),
    segments(app, workspace.id),
  ]);
  const { shown, next } = pageOf(rows, PAGE_SIZE, (row) => cursorOf(sort, row));
  const here = req.originalUrl;
  const list =
    shown.length === 0
      ? filtered(search)
        ? emptyState(
            'No contact matches',
            html`Change the search or the filters, or <a href="${base}/contacts">show every contact</a>.`,
          )
        : emptyState(
            'No contacts yet',
            html`Contacts appear when you send them with <code>POST /api/workspaces/${workspace.id}/contacts</code>, track an event for them, import a CSV (<code>switchboard import</code>) or a form collects them. See <a href="/docs">the API reference</a>.`,
          )
      : table({
          caption: 'Contacts',
          columns: [
            { label: 'Email' },
            { label: 'Name' },
            { label: 'Phone' },
            { label: 'Score', numeric: true },
            { label: 'Created' },
          ],
          rows: shown.map((row) => [
            html`<a href="${base}/contacts/${encodeURIComponent(row.id)}">${row.email ?? html`<span class="muted">anonymous ${row.id}</span>`}</a>`,
            displayName(row),
            row.phone ?? '',
            row.lead_score,
            time(row.created_at),
          ]),
        });
  sendPage(res, {
    title: 'Contacts',
    section: 'contacts',
    body: html`${filterForm(req, base, choices)}
<div id="results" aria-live="polite"><p class="muted">${totalLine(count)}</p>${list}
${pager({ first: after ? withQuery(here, {}) : null, next: next && withQuery(here, { after: next }) })}</div>`,
  });
}
