// /app/{ws}/audit: the audit log in the console, for ADMINs (as the API). A GET form of filters
// (works without JavaScript), the entries newest first, each with its changes as field, before,
// after in a <details> that opens without script, and keyset paging by the last entry's id.
import type { Request, Response } from 'express';
import { z } from 'zod';
import {
  type ConsolePages,
  emptyState,
  html,
  pageOf,
  pager,
  pageWorkspace,
  readCursor,
  requireAdmin,
  type SafeHtml,
  sendPage,
  table,
  time,
  withQuery,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { AUDIT_ACTION_NAMES, AUDIT_ACTIONS } from './actions.ts';
import { fieldChanges } from './diff.ts';
import type { AuditFilter } from './queries.ts';
import { AuditFilterFields } from './schemas.ts';
import { type AuditEntry, listAudit } from './service.ts';

const PAGE_SIZE = 50;
const FILTERS = ['action', 'actorType', 'actorId', 'targetType', 'targetId'] as const;
const Cursor = z.tuple([z.string().regex(/^aud_[0-9A-Z]{26}$/)]);

type Query = Record<string, unknown>;
const str = (query: Query, name: string) =>
  typeof query[name] === 'string' ? (query[name] as string).trim() : '';

/** A day typed in a date field, as the instant it starts (UTC); '' or nonsense: none. */
function dayStart(value: string, plusDays = 0): string | undefined {
  if (!/^\d{4}-\d\d-\d\d$/.test(value)) return undefined;
  const time = Date.parse(`${value}T00:00:00.000Z`);
  return Number.isNaN(time) ? undefined : new Date(time + plusDays * 86_400_000).toISOString();
}

/** The filters of the query string; a value that does not parse is left out, as the contact list does. */
export function filterOf(query: Query): Omit<AuditFilter, 'limit'> {
  const filter: Omit<AuditFilter, 'limit'> = {};
  for (const name of FILTERS) {
    const parsed = AuditFilterFields.shape[name].safeParse(str(query, name) || undefined);
    if (parsed.success && parsed.data !== undefined) Object.assign(filter, { [name]: parsed.data });
  }
  // The "to" day is included: entries before the start of the next day.
  return { ...filter, since: dayStart(str(query, 'from')), until: dayStart(str(query, 'to'), 1) };
}

function option(value: string, label: string, selected: string): SafeHtml {
  return html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
}

function filterForm(req: Request, base: string): SafeHtml {
  const q = req.query as Query;
  const kinds = Object.keys(AUDIT_ACTIONS).map((kind) => option(kind, `${kind}.*`, str(q, 'action')));
  const actions = AUDIT_ACTION_NAMES.map((name) => option(name, name, str(q, 'action')));
  const actorTypes = ['user', 'apiKey', 'cli', 'system'].map((type) =>
    option(type, type, str(q, 'actorType')),
  );
  return html`<form method="get" action="${base}/audit" class="panel filters" role="search">
<div><label for="action">Action</label><select id="action" name="action">${option('', 'Any action', str(q, 'action'))}<optgroup label="Every action of">${kinds}</optgroup><optgroup label="One action">${actions}</optgroup></select></div>
<div><label for="actorType">Actor</label><select id="actorType" name="actorType">${option('', 'Anyone', str(q, 'actorType'))}${actorTypes}</select></div>
<div><label for="actorId">User or key id</label><input id="actorId" name="actorId" value="${str(q, 'actorId')}" autocomplete="off"></div>
<div><label for="targetId">Target id</label><input id="targetId" name="targetId" value="${str(q, 'targetId')}" autocomplete="off"></div>
<div><label for="from">From (UTC)</label><input id="from" name="from" type="date" value="${str(q, 'from')}"></div>
<div><label for="to">To (UTC)</label><input id="to" name="to" type="date" value="${str(q, 'to')}"></div>
<div><button type="submit">Filter</button> <a href="${base}/audit">Clear</a></div>
</form>`;
}

function actorCell(entry: AuditEntry, base: string): SafeHtml {
  const { actor } = entry;
  const name = actor.name ?? actor.id ?? '';
  if (actor.type === 'system') return html`<span class="muted">system</span>`;
  if (actor.type === 'cli')
    return html`CLI${actor.name ? html` <span class="muted">(${actor.name})</span>` : ''}`;
  const label = actor.type === 'apiKey' ? html`API key ${name}` : html`${name}`;
  return html`<a href="${withQuery(`${base}/audit`, { actorId: actor.id })}">${label}</a>`;
}

function originCell(entry: AuditEntry): SafeHtml {
  if (entry.actor.type === 'cli') return html`command line`;
  if (!entry.origin.ip) return html`<span class="muted">—</span>`;
  return html`${entry.origin.ip}${entry.origin.userAgent ? html`<br><small class="muted">${entry.origin.userAgent}</small>` : ''}`;
}

function changesCell(entry: AuditEntry): SafeHtml {
  const changes = fieldChanges(entry.before, entry.after);
  if (changes.length === 0) return html`<span class="muted">—</span>`;
  const value = (text: string | null) =>
    text === null ? html`<span class="muted">—</span>` : html`<code>${text}</code>`;
  const rows = changes.map(
    (c) =>
      html`<tr><th scope="row">${c.field}</th><td>${value(c.before)}</td><td>${value(c.after)}</td></tr>`,
  );
  return html`<details><summary>${changes.length === 1 ? '1 field' : `${changes.length} fields`}</summary>
<table class="diff"><thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th></tr></thead><tbody>${rows}</tbody></table></details>`;
}

export async function auditPage(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const workspace = pageWorkspace(res);
  const base = workspacePath(res);
  const filter = filterOf(req.query as Query);
  const after = readCursor(req.query.after, Cursor);
  const rows = await listAudit(app.db, workspace.id, {
    ...filter,
    beforeId: after?.[0],
    limit: PAGE_SIZE + 1,
  });
  const { shown, next } = pageOf(rows, PAGE_SIZE, (entry) => [entry.id]);
  const filtered = Object.values(filter).some((value) => value !== undefined);
  const list =
    shown.length === 0
      ? emptyState(
          filtered ? 'No change matches' : 'No changes yet',
          filtered
            ? html`Change the filters, or <a href="${base}/audit">show every change</a>.`
            : html`Changes to keys, members, channels, webhooks, segments, scoring, campaigns and forms appear here, with who made them and from where.`,
        )
      : table({
          caption: 'Audit log',
          columns: [
            { label: 'When' },
            { label: 'Action' },
            { label: 'Target' },
            { label: 'By' },
            { label: 'From' },
            { label: 'Changes' },
          ],
          rows: shown.map((entry) => [
            time(entry.createdAt),
            html`<code>${entry.action}</code>`,
            html`<a href="${withQuery(`${base}/audit`, { targetId: entry.target.id })}">${entry.target.id}</a>`,
            actorCell(entry, base),
            originCell(entry),
            changesCell(entry),
          ]),
        });
  sendPage(res, {
    title: 'Audit log',
    section: 'audit',
    crumbs: [{ label: 'Audit log' }],
    body: html`${filterForm(req, base)}<div id="results">${list}${pager({
      first: after ? withQuery(req.originalUrl, {}) : null,
      next: next && withQuery(req.originalUrl, { after: next }),
    })}</div>`,
  });
}

export function auditConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: 'audit', label: 'Audit log', order: 90, adminOnly: true }],
    install(router) {
      router.get('/audit', (req, res) => auditPage(app, req, res));
    },
  };
}
