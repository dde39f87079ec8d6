// /app/{ws}/webhooks/{id}: an endpoint's settings, health and actions, and its delivery log
// (newest first, filtered by event type and outcome, keyset-paged). Each attempt opens (<details>,
// no script) onto the request as it was sent — headers and body — and the answer: status, the
// body's excerpt as recorded, the duration. An ADMIN retries one, or replays the failed ones.
import type { Request, Response } from 'express';
import { z } from 'zod';
import {
  badge,
  confirmForm,
  copyButton,
  html,
  isAdmin,
  keyValueList,
  pageOf,
  pager,
  pageWorkspace,
  postForm,
  readCursor,
  redirectWithFlash,
  requireAdmin,
  type SafeHtml,
  safeUrl,
  sendPage,
  time,
  withQuery,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { OUTGOING_EVENT_TYPES } from '../outbox/eventTypes.ts';
import { healthText, inboundUrl, lastFailure, stateBadge } from './consoleParts.ts';
import { deliveryLogPage, endpointHealth, messageBodies } from './consoleQueries.ts';
import type { DeliveryRow } from './deliveryQueries.ts';
import { userAgent } from './dispatcher.ts';
import type { Endpoint } from './schemas.ts';
import { getEndpoint, retryDelivery } from './service.ts';

const PAGE_SIZE = 25;
const Position = z.tuple([z.string().max(64), z.string().max(64)]);

type LogFilter = { event?: string; success?: boolean };

function filterOf(query: Record<string, unknown>): LogFilter {
  const event = typeof query.event === 'string' ? query.event.trim().slice(0, 200) : '';
  const outcome = query.outcome;
  return {
    event: event || undefined,
    success: outcome === 'succeeded' ? true : outcome === 'failed' ? false : undefined,
  };
}

/**
 * The headers the attempt was sent with. The signatures and their timestamp are computed at
 * send time from the endpoint's secret and are not kept: they are named, not shown.
 */
function requestHeaders(app: AppContext, delivery: DeliveryRow): [string, string][] {
  return [
    ['Content-Type', 'application/json'],
    ['User-Agent', userAgent(app.version)],
    ['X-Webhook-Event', delivery.event ?? ''],
    ['X-Webhook-Delivery', delivery.id],
    ['webhook-id', delivery.message_id ?? ''],
    ['webhook-timestamp', 'the second it was sent (not kept)'],
    ['webhook-signature', 'v1,… with each live secret (not kept)'],
    ['X-Webhook-Signature', 'hex HMAC-SHA256 of the body with the newest secret (not kept)'],
  ];
}

function outcomeBadge(delivery: DeliveryRow): SafeHtml {
  if (delivery.success)
    return badge(delivery.response_status ? `${delivery.response_status} OK` : 'OK', 'success');
  return badge(delivery.response_status ? `${delivery.response_status}` : 'failed', 'danger');
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function attempt(
  app: AppContext,
  res: Response,
  delivery: DeliveryRow,
  body: string | undefined,
  back: string,
): SafeHtml {
  const outbound = delivery.direction === 'OUTBOUND';
  const headers = requestHeaders(app, delivery)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  const retry =
    isAdmin(res) && outbound && delivery.message_id
      ? postForm(res, {
          action: `${workspacePath(res)}/webhooks/deliveries/${encodeURIComponent(delivery.id)}/retry`,
          label: 'Retry now',
          back,
        })
      : '';
  return html`<li><details><summary>${outcomeBadge(delivery)} <code>${delivery.event ?? '—'}</code>
 · attempt ${delivery.attempt}${delivery.trigger === 'manual' ? ' (manual)' : ''} · ${delivery.duration_ms} ms · ${time(delivery.created_at)}</summary>
${keyValueList([
  ['Delivery', html`<code>${delivery.id}</code>`],
  ['Direction', delivery.direction.toLowerCase()],
  ['URL', delivery.url],
  ['Response status', delivery.response_status === null ? null : String(delivery.response_status)],
  ['Error', delivery.error],
  ['Duration', `${delivery.duration_ms} ms`],
])}
${
  outbound
    ? html`<h3>Request headers</h3><pre class="code">${headers}</pre>
<h3>Request body</h3><pre class="code">${body === undefined ? 'Not kept (the message was pruned).' : pretty(body)}</pre>`
    : html`<p class="muted">Received from the sender; the request body became an event.</p>`
}
<h3>Response body <span class="muted">(excerpt)</span></h3><pre class="code">${delivery.response_body ?? '—'}</pre>
${retry}</details></li>`;
}

function filterForm(action: string, filter: LogFilter): SafeHtml {
  const outcome = filter.success === true ? 'succeeded' : filter.success === false ? 'failed' : '';
  const option = (value: string, label: string) =>
    html`<option value="${value}"${value === outcome ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="${action}" class="panel filters" aria-label="Filter deliveries">
<div><label for="event">Event type</label><input id="event" name="event" list="event-types" value="${filter.event ?? ''}" autocomplete="off">
<datalist id="event-types">${OUTGOING_EVENT_TYPES.map((type) => html`<option value="${type}"></option>`)}</datalist></div>
<div><label for="outcome">Outcome</label><select id="outcome" name="outcome">${option('', 'Any')}${option('succeeded', 'Succeeded')}${option('failed', 'Failed')}</select></div>
<div><button type="submit">Filter</button> <a href="${action}">Clear</a></div></form>`;
}

function actions(res: Response, endpoint: Endpoint, href: string): SafeHtml {
  if (!isAdmin(res)) return html``;
  return html`<section class="panel"><h2>Actions</h2>
<p><a class="button" href="${href}/edit">Edit</a>
${endpoint.direction === 'OUTBOUND' ? postForm(res, { action: `${href}/replay`, label: 'Replay failed deliveries', back: href }) : ''}
${postForm(res, { action: `${href}/rotate`, label: 'Rotate secret', back: href })}</p>
${confirmForm(res, {
  action: `${href}/delete`,
  label: 'Delete endpoint',
  back: href,
  confirm: {
    name: 'name',
    expected: endpoint.name,
    prompt: 'Type the endpoint’s name to delete it with its delivery log',
  },
})}</section>`;
}

export async function endpointPage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const endpoint = await getEndpoint(app.db, workspaceId, String(req.params.endpointId));
  const href = `${workspacePath(res)}/webhooks/${encodeURIComponent(endpoint.id)}`;
  const filter = filterOf(req.query as Record<string, unknown>);
  const after = readCursor(req.query.after, Position);
  const [[health], rows] = await Promise.all([
    endpointHealth(app.db, workspaceId, [endpoint.id]),
    deliveryLogPage(
      app.db,
      workspaceId,
      { ...filter, endpointId: endpoint.id },
      { after, limit: PAGE_SIZE + 1 },
    ),
  ]);
  const { shown, next } = pageOf(rows, PAGE_SIZE, (row) => [row.position, row.id]);
  const bodies = await messageBodies(
    app.db,
    workspaceId,
    shown.flatMap((row) => (row.message_id ? [row.message_id] : [])),
  );
  const here = req.originalUrl;
  const log =
    shown.length === 0
      ? html`<p class="muted">${after || filter.event || filter.success !== undefined ? 'No delivery matches.' : 'No deliveries yet.'}</p>`
      : html`<ol class="log">${shown.map((row) => attempt(app, res, row, row.message_id ? bodies.get(row.message_id) : undefined, here))}</ol>`;
  sendPage(res, {
    title: endpoint.name,
    section: 'webhooks',
    crumbs: [{ label: 'Webhooks', href: `${workspacePath(res)}/webhooks` }],
    body: html`<section class="panel">${keyValueList([
      ['Direction', endpoint.direction.toLowerCase()],
      [
        'URL',
        endpoint.direction === 'OUTBOUND'
          ? html`<a href="${safeUrl(endpoint.url ?? '')}" rel="noreferrer">${endpoint.url}</a>`
          : copyButton(inboundUrl(app, res, endpoint.id), 'Copy URL'),
      ],
      [
        'Events',
        endpoint.events.length === 0
          ? 'Every type'
          : html`${endpoint.events.map((e) => html`<code>${e}</code> `)}`,
      ],
      ['State', stateBadge(endpoint)],
      ['Success rate', healthText(health)],
      ['Last failure', lastFailure(health)],
      ['Created', time(endpoint.createdAt)],
    ])}</section>
${actions(res, endpoint, href)}
<section aria-labelledby="log-title"><h2 id="log-title">Delivery log</h2>
${filterForm(href, filter)}${log}
${pager({ first: after ? withQuery(here, {}) : null, next: next && withQuery(here, { after: next }) })}</section>`,
  });
}

export async function retryPost(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const workspaceId = pageWorkspace(res).id;
  await retryDelivery(app.db, workspaceId, String(req.params.deliveryId), { signedInAdmin: true });
  const back =
    typeof req.body?._back === 'string' && /^\/app\/(?![/\\])/.test(req.body._back)
      ? req.body._back
      : `${workspacePath(res)}/webhooks`;
  redirectWithFlash(req, res, back, 'Retry queued: the attempt appears in the log once it is sent.');
}
