// /app/{ws}/contacts/{id}: a contact's page. Its own parts: the profile and the attributes (each a
// form: POST, 303, flash), the merged identities, and deletion confirmed by typing the email. The
// rest are panels handed in (consolePanels.ts). A merged-away id redirects to its primary's page.
import type { Request, Response, Router } from 'express';
import {
  confirmForm,
  consoleForm,
  csrfField,
  formText,
  html,
  keyValueList,
  pageWorkspace,
  redirectWithFlash,
  type SafeHtml,
  sendPage,
  table,
  time,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { ValidationError } from '../core/errors.ts';
import { displayName } from './consoleList.ts';
import type { ContactPanel, ContactView } from './consolePanels.ts';
import { listMergedIdentities } from './identityQueries.ts';
import type { ContactRow } from './queries.ts';
import { UpdateContactBody } from './schemas.ts';
import { deleteContact, getContact, patchContact } from './service.ts';

export function contactTitle(contact: ContactRow): string {
  return contact.email ?? (displayName(contact) || 'Anonymous contact');
}

function profileForm(res: Response, path: string, contact: ContactRow): SafeHtml {
  const field = (name: string, label: string, value: string | null, type = 'text', autocomplete = 'off') =>
    html`<label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" value="${value ?? ''}" autocomplete="${autocomplete}">`;
  return html`<details><summary>Edit profile</summary>
<form method="post" action="${path}/profile">${csrfField(res)}<input type="hidden" name="_back" value="${path}">
${field('email', 'Email', contact.email, 'email')}
${field('firstName', 'First name', contact.first_name)}
${field('lastName', 'Last name', contact.last_name)}
${field('phone', 'Phone', contact.phone, 'tel')}
<p class="muted">An empty field clears it.</p>
<p><button type="submit">Save profile</button></p></form></details>`;
}

function profile(res: Response, path: string, contact: ContactRow): SafeHtml {
  return html`<section class="panel" aria-labelledby="profile-title"><h2 id="profile-title">Profile</h2>
${keyValueList([
  ['Email', contact.email],
  ['Name', displayName(contact)],
  ['Phone', contact.phone],
  ['Id', html`<code>${contact.id}</code>`],
  ['Anonymous id', contact.anonymous_id && html`<code>${contact.anonymous_id}</code>`],
  ['Lead score', contact.lead_score],
  ['Created', time(contact.created_at)],
  ['Updated', time(contact.updated_at)],
])}
${profileForm(res, path, contact)}</section>`;
}

/** How an attribute shows in its field: text as itself, anything else as JSON. */
function shownValue(value: unknown): { text: string; json: boolean } {
  return typeof value === 'string'
    ? { text: value, json: false }
    : { text: JSON.stringify(value), json: true };
}

function attributes(res: Response, path: string, contact: ContactRow): SafeHtml {
  const entries = Object.entries(contact.attributes);
  const rows = entries.map(([key, value], i) => {
    const shown = shownValue(value);
    return html`<tr><th scope="row"><label for="attrValue${i}">${key}</label><input type="hidden" name="attrKey${i}" value="${key}">
${shown.json ? html`<input type="hidden" name="attrJson${i}" value="1"> <span class="muted">(JSON)</span>` : ''}</th>
<td><input id="attrValue${i}" name="attrValue${i}" value="${shown.text}" autocomplete="off"></td>
<td><label class="inline-check"><input type="checkbox" name="attrRemove${i}" value="1"> Remove <span class="visually-hidden">${key}</span></label></td></tr>`;
  });
  return html`<section class="panel" aria-labelledby="attributes-title"><h2 id="attributes-title">Attributes</h2>
<form method="post" action="${path}/attributes">${csrfField(res)}<input type="hidden" name="_back" value="${path}"><input type="hidden" name="attrCount" value="${entries.length}">
${entries.length === 0 ? html`<p class="muted">No attributes yet.</p>` : html`<div class="table-wrap"><table><caption class="visually-hidden">Attributes</caption><thead><tr><th scope="col">Name</th><th scope="col">Value</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead><tbody>${rows}</tbody></table></div>`}
<div class="filters"><div><label for="newKey">New attribute</label><input id="newKey" name="newKey" autocomplete="off" maxlength="200"></div>
<div><label for="newValue">Its value</label><input id="newValue" name="newValue" autocomplete="off"></div></div>
<p class="muted">Values are text; a value marked JSON is read as JSON (a number, true, a list…).</p>
<p><button type="submit">Save attributes</button></p></form></section>`;
}

async function identities(app: AppContext, workspaceId: string, contact: ContactRow): Promise<SafeHtml> {
  const merged = await listMergedIdentities(app.db, workspaceId, contact.id);
  const body =
    merged.length === 0
      ? html`<p class="muted">No other contact was merged into this one.</p>`
      : table({
          caption: 'Merged identities',
          columns: [{ label: 'Kind' }, { label: 'Value' }, { label: 'Answers until' }],
          rows: merged.map((m) => [
            m.kind === 'merged_id' ? 'Merged contact id' : 'Anonymous id kept',
            html`<code>${m.value}</code>`,
            m.until ? time(m.until) : html`<span class="muted">always</span>`,
          ]),
        });
  return html`<section class="panel" aria-labelledby="identities-title"><h2 id="identities-title">Merged identities</h2>${body}</section>`;
}

function deletion(res: Response, path: string, contact: ContactRow): SafeHtml {
  const expected = contact.email ?? contact.id;
  return html`<section class="panel" aria-labelledby="delete-title"><h2 id="delete-title">Delete this contact</h2>
<p>Erases the person: their events, memberships, enrollments and score history. It cannot be undone.</p>
${confirmForm(res, {
  action: `${path}/delete`,
  label: 'Delete contact',
  back: path,
  confirm: {
    name: 'confirm',
    expected,
    prompt: `Type ${contact.email ? 'the email' : 'the id'} (${expected}) to confirm`,
  },
})}</section>`;
}

async function renderPanel(panel: ContactPanel, view: ContactView): Promise<SafeHtml | null> {
  const body = await panel.render(view);
  if (!body) return null;
  return html`<section class="panel${panel.wide ? ' wide' : ''}" id="${panel.id}" aria-labelledby="${panel.id}-title"><h2 id="${panel.id}-title">${panel.title}</h2>${body}</section>`;
}

export async function contactPage(app: AppContext, panels: ContactPanel[], req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const contact = await getContact(app.db, workspaceId, String(req.params.contactId));
  const base = workspacePath(res);
  const path = `${base}/contacts/${encodeURIComponent(contact.id)}`;
  if (contact.id !== req.params.contactId) return res.redirect(303, path);
  const view: ContactView = { app, req, res, workspaceId, contact, path };
  const rendered = await Promise.all(panels.map((panel) => renderPanel(panel, view)));
  const narrow = rendered.filter((_, i) => !panels[i].wide);
  const wide = rendered.filter((_, i) => panels[i].wide);
  sendPage(res, {
    title: contactTitle(contact),
    section: 'contacts',
    crumbs: [{ label: 'Contacts', href: `${base}/contacts` }],
    body: html`<div class="grid">${profile(res, path, contact)}${attributes(res, path, contact)}${narrow}${await identities(app, workspaceId, contact)}</div>
${wide}${deletion(res, path, contact)}`,
  });
}

/** The profile form as the API's PATCH body: an empty field is a null (cleared). */
function profileChanges(req: Request) {
  const value = (name: string) => formText(req, name).trim() || null;
  return {
    email: value('email'),
    firstName: value('firstName'),
    lastName: value('lastName'),
    phone: value('phone'),
  };
}

/** The attributes form as the PATCH's `attributes`: changed values, removals as null, a new one. */
function attributeChanges(req: Request): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const count = Math.min(Number(formText(req, 'attrCount')) || 0, 1000);
  for (let i = 0; i < count; i++) {
    const key = formText(req, `attrKey${i}`);
    if (!key) continue;
    if (formText(req, `attrRemove${i}`)) {
      changes[key] = null;
      continue;
    }
    const text = formText(req, `attrValue${i}`);
    if (!formText(req, `attrJson${i}`)) changes[key] = text;
    else {
      try {
        changes[key] = JSON.parse(text);
      } catch {
        throw new ValidationError([{ path: `attributes.${key}`, message: 'is not valid JSON' }]);
      }
    }
  }
  const newKey = formText(req, 'newKey').trim();
  if (newKey) changes[newKey] = formText(req, 'newValue');
  return changes;
}

async function saveContact(app: AppContext, req: Request, res: Response, body: unknown, message: string) {
  const workspaceId = pageWorkspace(res).id;
  const path = `${workspacePath(res)}/contacts/${encodeURIComponent(String(req.params.contactId))}`;
  const parsed = UpdateContactBody.safeParse(body);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({
      path: issue.path.join('.') || 'form',
      message: issue.message,
    }));
    throw new ValidationError(errors);
  }
  const { attributes: attributeChanges, ...fields } = parsed.data;
  await app.db.transaction((tx) =>
    patchContact(
      tx,
      app.effects.contacts,
      workspaceId,
      String(req.params.contactId),
      fields,
      attributeChanges,
    ),
  );
  await redirectWithFlash(req, res, path, message);
}

async function removeContact(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const contact = await getContact(app.db, workspaceId, String(req.params.contactId));
  if (formText(req, 'confirm').trim() !== (contact.email ?? contact.id)) {
    throw new ValidationError([
      { path: 'confirm', message: `type ${contact.email ? 'the email' : 'the id'} exactly to delete` },
    ]);
  }
  await app.db.transaction((tx) => deleteContact(tx, workspaceId, contact.id));
  await redirectWithFlash(
    req,
    res,
    `${workspacePath(res)}/contacts`,
    `${contactTitle(contact)} was deleted.`,
  );
}

export function installContactPage(router: Router, app: AppContext, panels: ContactPanel[]) {
  router.get('/contacts/:contactId', (req, res) => contactPage(app, panels, req, res));
  router.post('/contacts/:contactId/profile', consoleForm(), (req, res) =>
    saveContact(app, req, res, profileChanges(req), 'Profile saved.'),
  );
  router.post('/contacts/:contactId/attributes', consoleForm(), (req, res) =>
    saveContact(app, req, res, { attributes: attributeChanges(req) }, 'Attributes saved.'),
  );
  router.post('/contacts/:contactId/delete', consoleForm(), (req, res) => removeContact(app, req, res));
  for (const panel of panels) panel.install?.(router, app);
}
