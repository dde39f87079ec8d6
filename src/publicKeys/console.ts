// /app/{ws}/settings/publishable (src/console/ kit): the workspace's publishable keys (pk_…, safe in
// page source, so shown in full) with their origins and event types, and the identity secret. As
// the API: for a signed-in ADMIN only. An ADMIN creates, edits and revokes keys (revoking asks on a
// page of its own); the identity secret is revealed on request, in the answer to that POST only,
// and rotating it (tokens signed with the old one stop at once) asks first.
import type { Request, Response } from 'express';
import {
  type ConsolePages,
  consoleForm,
  consoleState,
  copyButton,
  csrfField,
  emptyState,
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
import { readIdentitySecret, rotateIdentitySecret } from './identity.ts';
import { CreatePublishableKeyBody, UpdatePublishableKeyBody } from './schemas.ts';
import {
  changePublishableKey,
  createPublishableKey,
  listPublishableKeys,
  revokePublishable,
} from './service.ts';

const SECTION = 'settings/publishable';
const TITLE = 'Publishable keys';
type Key = Awaited<ReturnType<typeof listPublishableKeys>>[number];

const base = (res: Response) => `${workspacePath(res)}/${SECTION}`;

/** One item per line (or comma): how origins and event types are typed in a textarea. */
function lines(value: string): string[] {
  return value
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean);
}

function keyFields(key?: Key): SafeHtml {
  return html`<label for="pk-name">Name</label><input id="pk-name" name="name" required maxlength="100" autocomplete="off" value="${key?.name ?? ''}" placeholder="Website">
<label for="pk-origins">Allowed origins <span class="muted">(one per line, such as https://www.example.com)</span></label>
<textarea id="pk-origins" name="allowedOrigins" rows="3" required>${(key?.allowedOrigins ?? []).join('\n')}</textarea>
<label for="pk-events">Allowed event types <span class="muted">(one per line; empty: none)</span></label>
<textarea id="pk-events" name="allowedEventTypes" rows="3">${(key?.allowedEventTypes ?? []).join('\n')}</textarea>`;
}

function bodyOf(req: Request) {
  return {
    name: formText(req, 'name'),
    allowedOrigins: lines(formText(req, 'allowedOrigins')),
    allowedEventTypes: lines(formText(req, 'allowedEventTypes')),
  };
}

function identityPanel(res: Response): SafeHtml {
  return html`<section class="panel" aria-labelledby="identity"><h2 id="identity">Identity secret</h2>
<p>Your backend signs identity tokens with it (hex HMAC-SHA256 of the email or contact id), so a page using a publishable key may act as that contact. Keep it on your server.</p>
<p>${postForm(res, { action: `${base(res)}/identity-secret`, label: 'Reveal the identity secret' })}
<a href="${base(res)}/identity-secret/rotate">Rotate…</a></p></section>`;
}

async function listPage(app: AppContext, _req: Request, res: Response) {
  requireAdmin(res);
  const keys = await listPublishableKeys(app.db, pageWorkspace(res).id);
  const list =
    keys.length === 0
      ? emptyState(
          'No publishable keys yet',
          'Create one below for your web pages to send events and subscriptions.',
        )
      : table({
          caption: TITLE,
          columns: [
            { label: 'Name' },
            { label: 'Key' },
            { label: 'Origins' },
            { label: 'Event types' },
            { label: 'Last used' },
            { label: 'Actions', hidden: true },
          ],
          rows: keys.map((key) => [
            key.name,
            copyButton(key.key),
            html`${key.allowedOrigins.map((o) => html`<code>${o}</code> `)}`,
            key.allowedEventTypes.length
              ? html`${key.allowedEventTypes.map((t) => html`<code>${t}</code> `)}`
              : html`<span class="muted">None</span>`,
            key.lastUsedAt ? time(key.lastUsedAt) : html`<span class="muted">Never</span>`,
            html`<a href="${base(res)}/${encodeURIComponent(key.id)}">Edit or revoke<span class="visually-hidden"> ${key.name}</span></a>`,
          ]),
        });
  sendPage(res, {
    title: TITLE,
    section: SECTION,
    body: html`${groupTabs(res, 'Settings', SECTION)}${list}
<form method="post" action="${base(res)}" class="panel stack" aria-labelledby="new-pk">${csrfField(res)}<h2 id="new-pk">New publishable key</h2>
${keyFields()}<div><button type="submit">Create key</button></div></form>
${identityPanel(res)}`,
  });
}

async function create(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const body = parseForm(CreatePublishableKeyBody, bodyOf(req));
  const key = await createPublishableKey(app.db, pageWorkspace(res).id, {
    ...body,
    createdBy: consoleState(res).user.id,
  });
  redirectWithFlash(req, res, base(res), `Publishable key “${key.name}” created.`);
}

async function findKey(app: AppContext, res: Response, keyId: string): Promise<Key> {
  const key = (await listPublishableKeys(app.db, pageWorkspace(res).id)).find((k) => k.id === keyId);
  if (!key) throw new NotFoundError('Publishable key');
  return key;
}

async function keyPage(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const key = await findKey(app, res, String(req.params.keyId));
  const href = `${base(res)}/${encodeURIComponent(key.id)}`;
  sendPage(res, {
    title: key.name,
    section: SECTION,
    crumbs: [{ label: TITLE, href: base(res) }],
    body: html`<p>${copyButton(key.key)}</p>
<form method="post" action="${href}" class="panel stack">${csrfField(res)}${keyFields(key)}<div><button type="submit">Save changes</button></div></form>
<section class="panel"><h2>Revoke</h2><p>Pages using this key are refused at once. This cannot be undone.</p>
${postForm(res, { action: `${href}/revoke`, label: 'Revoke key', danger: true, back: href })}</section>`,
  });
}

async function update(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const key = await findKey(app, res, String(req.params.keyId));
  const body = parseForm(UpdatePublishableKeyBody, bodyOf(req));
  const saved = await changePublishableKey(app.db, pageWorkspace(res).id, key.id, body);
  redirectWithFlash(req, res, base(res), `Publishable key “${saved.name}” saved.`);
}

async function revoke(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const key = await findKey(app, res, String(req.params.keyId));
  await revokePublishable(app.db, pageWorkspace(res).id, key.id);
  redirectWithFlash(req, res, base(res), `Publishable key “${key.name}” revoked.`);
}

function secretPage(res: Response, title: string, secret: { secret: string; rotatedAt: string }) {
  sendPage(res, {
    title,
    section: SECTION,
    crumbs: [{ label: TITLE, href: base(res) }],
    body: html`<section class="panel" role="status"><p>${copyButton(secret.secret, 'Copy secret')}</p>
<p class="muted">Made or last rotated ${time(secret.rotatedAt)}. It is not shown again unless you ask.</p>
<p><a href="${base(res)}">Back to the publishable keys</a></p></section>`,
  });
}

async function reveal(app: AppContext, _req: Request, res: Response) {
  requireAdmin(res);
  secretPage(res, 'Identity secret', await readIdentitySecret(app.db, pageWorkspace(res).id));
}

function rotatePage(_req: Request, res: Response) {
  requireAdmin(res);
  sendPage(res, {
    title: 'Rotate the identity secret?',
    section: SECTION,
    crumbs: [{ label: TITLE, href: base(res) }],
    body: html`<section class="panel"><p>Identity tokens signed with the current secret stop working at once: update your backend right after.</p>
<p>${postForm(res, { action: `${base(res)}/identity-secret/rotate`, label: 'Rotate the secret', danger: true })} <a href="${base(res)}">Cancel</a></p></section>`,
  });
}

async function rotate(app: AppContext, _req: Request, res: Response) {
  requireAdmin(res);
  secretPage(res, 'Identity secret rotated', await rotateIdentitySecret(app.db, pageWorkspace(res).id));
}

export function publishableKeyConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: SECTION, label: TITLE, group: 'Settings', order: 81, adminOnly: true }],
    install(router) {
      router.get(`/${SECTION}`, (req, res) => listPage(app, req, res));
      router.post(`/${SECTION}`, consoleForm(), (req, res) => create(app, req, res));
      router.post(`/${SECTION}/identity-secret`, consoleForm(), (req, res) => reveal(app, req, res));
      router.get(`/${SECTION}/identity-secret/rotate`, rotatePage);
      router.post(`/${SECTION}/identity-secret/rotate`, consoleForm(), (req, res) => rotate(app, req, res));
      router.get(`/${SECTION}/:keyId`, (req, res) => keyPage(app, req, res));
      router.post(`/${SECTION}/:keyId`, consoleForm(), (req, res) => update(app, req, res));
      router.post(`/${SECTION}/:keyId/revoke`, consoleForm(), (req, res) => revoke(app, req, res));
    },
  };
}
