// The webhooks section of the console (src/console/ kit): /app/{ws}/webhooks lists the endpoints
// with their health; an endpoint's page (consoleEndpoint.ts) has its settings, actions and the
// delivery log. The same services and role rules as the API: any member reads, only an ADMIN
// changes (the buttons are absent for a MEMBER and its crafted POSTs get the 403 page).
//
// A new or rotated secret is shown once, in the answer to the POST itself (not after a redirect):
// it never goes into the session store, and leaving the page loses it for good.
import type { Request, Response } from 'express';
import {
  type ConsolePages,
  consoleForm,
  copyButton,
  emptyState,
  html,
  isAdmin,
  pageWorkspace,
  redirectWithFlash,
  requireAdmin,
  safeUrl,
  sendPage,
  table,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { endpointPage, retryPost } from './consoleEndpoint.ts';
import { createBodyOf, createEndpointForm, editEndpointForm, updateBodyOf } from './consoleForms.ts';
import { healthText, inboundUrl, lastFailure, stateBadge } from './consoleParts.ts';
import { endpointHealth } from './consoleQueries.ts';
import type { Endpoint } from './schemas.ts';
import {
  changeEndpoint,
  createEndpoint,
  getEndpoint,
  listEndpoints,
  removeEndpoint,
  replayFailedMessages,
  rotateSecret,
} from './service.ts';

const crumbs = (res: Response) => [{ label: 'Webhooks', href: `${workspacePath(res)}/webhooks` }];

async function listPage(app: AppContext, _req: Request, res: Response) {
  const workspace = pageWorkspace(res);
  const base = `${workspacePath(res)}/webhooks`;
  const endpoints = await listEndpoints(app.db, workspace.id);
  const health = new Map(
    (
      await endpointHealth(
        app.db,
        workspace.id,
        endpoints.map((e) => e.id),
      )
    ).map((h) => [h.endpoint_id, h]),
  );
  const body =
    endpoints.length === 0
      ? emptyState(
          'No webhook endpoints yet',
          isAdmin(res)
            ? html`<a href="${base}/new">Create one</a> to receive an HTTP POST for every event you choose, or to accept events from another service.`
            : html`An ADMIN of this workspace can create one.`,
        )
      : table({
          caption: 'Webhook endpoints',
          columns: [
            { label: 'Name' },
            { label: 'Target' },
            { label: 'State' },
            { label: 'Success rate' },
            { label: 'Last failure' },
            { label: 'Attempts', numeric: true },
          ],
          rows: endpoints.map((e) => [
            html`<a href="${base}/${encodeURIComponent(e.id)}">${e.name}</a>`,
            e.direction === 'OUTBOUND'
              ? html`<span class="break">${e.url}</span>`
              : html`<span class="muted">Inbound</span>`,
            stateBadge(e),
            healthText(health.get(e.id)),
            lastFailure(health.get(e.id)),
            e._count.deliveries,
          ]),
        });
  sendPage(res, {
    title: 'Webhooks',
    section: 'webhooks',
    actions: isAdmin(res) ? html`<a class="button" href="${base}/new">New endpoint</a>` : undefined,
    body,
  });
}

function newPage(_req: Request, res: Response) {
  requireAdmin(res);
  sendPage(res, {
    title: 'New endpoint',
    section: 'webhooks',
    crumbs: crumbs(res),
    body: createEndpointForm(res, `${workspacePath(res)}/webhooks`),
  });
}

/** The page that shows a secret once: right after creating the endpoint or rotating its secret. */
function secretPage(
  app: AppContext,
  res: Response,
  endpoint: Endpoint,
  secret: string | null,
  title: string,
  note?: string,
) {
  const href = `${workspacePath(res)}/webhooks/${encodeURIComponent(endpoint.id)}`;
  const secretPart = secret
    ? html`<p><strong>Copy the signing secret now: it is shown only this once.</strong></p><p>${copyButton(secret, 'Copy secret')}</p>
${note ? html`<p class="muted">${note}</p>` : ''}`
    : html`<p>This inbound endpoint is not signed: it accepts requests without a signature.</p>`;
  const target =
    endpoint.direction === 'INBOUND'
      ? html`<p>Send events to ${copyButton(inboundUrl(app, res, endpoint.id), 'Copy URL')}</p>`
      : html`<p>Events go to <a href="${safeUrl(endpoint.url ?? '')}" rel="noreferrer">${endpoint.url}</a>.</p>`;
  sendPage(res, {
    title,
    section: 'webhooks',
    crumbs: crumbs(res),
    status: 201,
    body: html`<section class="panel" role="status">${secretPart}${target}<p><a href="${href}">Go to ${endpoint.name}</a></p></section>`,
  });
}

async function create(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const body = createBodyOf(req);
  const { secret, ...endpoint } = await createEndpoint(app.db, app.config, pageWorkspace(res).id, body);
  secretPage(app, res, endpoint, secret, 'Endpoint created');
}

async function editPage(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const endpoint = await getEndpoint(app.db, pageWorkspace(res).id, String(req.params.endpointId));
  const href = `${workspacePath(res)}/webhooks/${encodeURIComponent(endpoint.id)}`;
  sendPage(res, {
    title: `Edit ${endpoint.name}`,
    section: 'webhooks',
    crumbs: [...crumbs(res), { label: endpoint.name, href }],
    body: editEndpointForm(res, href, endpoint),
  });
}

async function update(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const workspaceId = pageWorkspace(res).id;
  const current = await getEndpoint(app.db, workspaceId, String(req.params.endpointId));
  const saved = await changeEndpoint(app.db, app.config, workspaceId, current.id, updateBodyOf(req, current));
  const href = `${workspacePath(res)}/webhooks/${encodeURIComponent(saved.id)}`;
  redirectWithFlash(req, res, href, `Endpoint “${saved.name}” saved.`);
}

async function rotate(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const { secret, previousSecretExpiresAt, ...endpoint } = await rotateSecret(
    app.db,
    pageWorkspace(res).id,
    String(req.params.endpointId),
  );
  const note = previousSecretExpiresAt
    ? `The previous secret keeps signing alongside the new one until ${previousSecretExpiresAt}.`
    : undefined;
  secretPage(app, res, endpoint, secret, 'Secret rotated', note);
}

async function remove(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const workspaceId = pageWorkspace(res).id;
  const endpoint = await getEndpoint(app.db, workspaceId, String(req.params.endpointId));
  const back = `${workspacePath(res)}/webhooks/${encodeURIComponent(endpoint.id)}`;
  if (req.body?.name !== endpoint.name)
    return redirectWithFlash(req, res, back, 'Type the endpoint’s name to delete it.', 'error');
  await removeEndpoint(app.db, workspaceId, endpoint.id);
  redirectWithFlash(req, res, `${workspacePath(res)}/webhooks`, `Endpoint “${endpoint.name}” deleted.`);
}

async function replay(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const workspaceId = pageWorkspace(res).id;
  const endpoint = await getEndpoint(app.db, workspaceId, String(req.params.endpointId));
  const back = `${workspacePath(res)}/webhooks/${encodeURIComponent(endpoint.id)}`;
  const result = await replayFailedMessages(app.db, workspaceId, endpoint.id);
  const parts = [
    result.queued === 1 ? '1 failed message queued again' : `${result.queued} failed messages queued again`,
    result.retrying > 0 && `${result.retrying} still waiting for their scheduled retry, left to it`,
    result.inactive > 0 && `${result.inactive} not sent: the endpoint is disabled`,
  ].filter(Boolean);
  redirectWithFlash(req, res, back, `${parts.join('; ')}.`, result.inactive > 0 ? 'error' : 'success');
}

export function webhookConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: 'webhooks', label: 'Webhooks', key: 'w', order: 60 }],
    install(router) {
      router.get('/webhooks', (req, res) => listPage(app, req, res));
      router.get('/webhooks/new', newPage);
      router.post('/webhooks', consoleForm(), (req, res) => create(app, req, res));
      router.post('/webhooks/deliveries/:deliveryId/retry', consoleForm(), (req, res) =>
        retryPost(app, req, res),
      );
      router.get('/webhooks/:endpointId', (req, res) => endpointPage(app, req, res));
      router.post('/webhooks/:endpointId', consoleForm(), (req, res) => update(app, req, res));
      router.get('/webhooks/:endpointId/edit', (req, res) => editPage(app, req, res));
      router.post('/webhooks/:endpointId/rotate', consoleForm(), (req, res) => rotate(app, req, res));
      router.post('/webhooks/:endpointId/delete', consoleForm(), (req, res) => remove(app, req, res));
      router.post('/webhooks/:endpointId/replay', consoleForm(), (req, res) => replay(app, req, res));
    },
  };
}
