// /app/{ws}/settings/keys (src/console/ kit): the workspace's API keys, masked, with their scopes,
// expiry and last use; an ADMIN creates one (scope checkboxes, an optional expiry date) and sees
// the key once, in the answer to that POST (never kept in the session); revoking asks first, on a
// page of its own, so it works without JavaScript. As the API: keys are for a signed-in ADMIN
// only, so a MEMBER gets the 403 page here too.
import type { Request, Response } from 'express';
import {
  type ConsolePages,
  consoleForm,
  consoleState,
  copyButton,
  csrfField,
  emptyState,
  formList,
  formText,
  groupTabs,
  html,
  pageWorkspace,
  parseForm,
  postForm,
  redirectWithFlash,
  requireAdmin,
  type SafeHtml,
  sendPage,
  table,
  time,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { NotFoundError } from '../core/errors.ts';
import { SCOPES } from '../http/scopes.ts';
import { CreateApiKeyBody } from './schemas.ts';
import { createApiKey, listApiKeys, revokeKey } from './service.ts';

const SECTION = 'settings/keys';
const title = 'API keys';

function createForm(res: Response, action: string): SafeHtml {
  const boxes = SCOPES.map(
    (scope) =>
      html`<label class="check"><input type="checkbox" name="scopes" value="${scope}"> <code>${scope}</code></label>`,
  );
  return html`<form method="post" action="${action}" class="panel stack" aria-labelledby="new-key">${csrfField(res)}
<h2 id="new-key">New key</h2>
<label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100" autocomplete="off" placeholder="CRM sync">
<fieldset><legend>Scopes <span class="muted">(at least one)</span></legend>${boxes}</fieldset>
<label for="expires">Expires at the end of <span class="muted">(UTC; empty: never)</span></label><input id="expires" name="expiresOn" type="date">
<div><button type="submit">Create key</button></div></form>`;
}

/** A date from the form (YYYY-MM-DD) as the end of that day in UTC; anything else as typed. */
function expiryOf(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  return /^\d{4}-\d\d-\d\d$/.test(trimmed) ? `${trimmed}T23:59:59Z` : trimmed;
}

async function listPage(app: AppContext, _req: Request, res: Response) {
  requireAdmin(res);
  const base = `${workspacePath(res)}/settings/keys`;
  const keys = await listApiKeys(app.db, pageWorkspace(res).id);
  const list =
    keys.length === 0
      ? emptyState('No API keys yet', 'Create one below for a server or a script to call the API.')
      : table({
          caption: 'API keys',
          columns: [
            { label: 'Name' },
            { label: 'Key' },
            { label: 'Scopes' },
            { label: 'Expires' },
            { label: 'Last used' },
            { label: 'Created' },
            { label: 'Actions', hidden: true },
          ],
          rows: keys.map((key) => [
            key.name,
            html`<code>${key.key}</code>`,
            html`${key.scopes.map((s) => html`<code>${s}</code> `)}`,
            key.expiresAt ? time(key.expiresAt) : html`<span class="muted">Never</span>`,
            key.lastUsedAt ? time(key.lastUsedAt) : html`<span class="muted">Never</span>`,
            time(key.createdAt),
            html`<a href="${base}/${encodeURIComponent(key.id)}/revoke">Revoke<span class="visually-hidden"> ${key.name}</span></a>`,
          ]),
        });
  sendPage(res, {
    title,
    section: SECTION,
    body: html`${groupTabs(res, 'Settings', SECTION)}${list}${createForm(res, base)}`,
  });
}

async function create(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const base = `${workspacePath(res)}/settings/keys`;
  const body = parseForm(CreateApiKeyBody, {
    name: formText(req, 'name'),
    scopes: formList(req, 'scopes'),
    expiresAt: expiryOf(formText(req, 'expiresOn')),
  });
  const created = await createApiKey(app.db, pageWorkspace(res).id, {
    ...body,
    createdBy: consoleState(res).user.id,
  });
  sendPage(res, {
    title: 'Key created',
    section: SECTION,
    crumbs: [{ label: title, href: base }],
    status: 201,
    body: html`<section class="panel" role="status"><p><strong>Copy the key “${created.name}” now: it is shown only this once.</strong></p>
<p>${copyButton(created.key, 'Copy key')}</p><p><a href="${base}">Back to the API keys</a></p></section>`,
  });
}

async function findKey(app: AppContext, res: Response, keyId: string) {
  const key = (await listApiKeys(app.db, pageWorkspace(res).id)).find((k) => k.id === keyId);
  if (!key) throw new NotFoundError('API key');
  return key;
}

async function revokePage(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const key = await findKey(app, res, String(req.params.keyId));
  const base = `${workspacePath(res)}/settings/keys`;
  sendPage(res, {
    title: `Revoke ${key.name}?`,
    section: SECTION,
    crumbs: [{ label: title, href: base }],
    body: html`<section class="panel"><p>Requests made with <code>${key.key}</code> will be refused at once. This cannot be undone.</p>
<p>${postForm(res, { action: `${base}/${encodeURIComponent(key.id)}/revoke`, label: 'Revoke key', danger: true, back: base })} <a href="${base}">Cancel</a></p></section>`,
  });
}

async function revoke(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const key = await findKey(app, res, String(req.params.keyId));
  await revokeKey(app.db, pageWorkspace(res).id, key.id);
  redirectWithFlash(req, res, `${workspacePath(res)}/settings/keys`, `Key “${key.name}” revoked.`);
}

export function apiKeyConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: SECTION, label: title, group: 'Settings', order: 80, adminOnly: true }],
    install(router) {
      router.get('/settings/keys', (req, res) => listPage(app, req, res));
      router.post('/settings/keys', consoleForm(), (req, res) => create(app, req, res));
      router.get('/settings/keys/:keyId/revoke', (req, res) => revokePage(app, req, res));
      router.post('/settings/keys/:keyId/revoke', consoleForm(), (req, res) => revoke(app, req, res));
    },
  };
}
