// The forms section of the console (/app/{ws}/forms): the list (fields, double opt-in, submissions
// over the last 30 days, the hosted link), the editor to create and change one (consoleEditor.ts),
// a form's page (its definition, the hosted link and the embed snippet to copy, its submissions
// newest first by keyset, each with its contact), and delete behind a confirmation. Pages call the
// API's schemas and service (src/forms/service.ts) with the API's roles: any member may write forms.
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import {
  badge,
  type ConsolePages,
  confirmForm,
  consoleForm,
  copyButton,
  emptyState,
  escapeText,
  formatNumber,
  formText,
  html,
  keyValueList,
  pageOf,
  pager,
  pageWorkspace,
  parseForm,
  readCursor,
  redirectWithFlash,
  type SafeHtml,
  sendPage,
  table,
  time,
  withQuery,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { ValidationError } from '../core/errors.ts';
import {
  applyEdit,
  bodyOf,
  type Draft,
  draftOf,
  editorForm,
  type Refusals,
  readDraft,
  refusalsOf,
  STARTER,
} from './consoleEditor.ts';
import { recentSubmissionCounts, type SubmissionListRow, submissionPageOf } from './consoleQueries.ts';
import { CreateFormBody, UpdateFormBody } from './schemas.ts';
import { changeForm, createForm, getForm, listFormsOf, removeForm } from './service.ts';

const DAYS = 30;
const SUBMISSIONS_PER_PAGE = 50;

type Form = Awaited<ReturnType<typeof getForm>>;

const formsPath = (res: Response) => `${workspacePath(res)}/forms`;
const formPath = (res: Response, id: string) => `${formsPath(res)}/${encodeURIComponent(id)}`;

async function listPage(app: AppContext, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const forms = await listFormsOf(app.db, app.config, workspaceId);
  const counts = await recentSubmissionCounts(
    app.db,
    workspaceId,
    forms.map((form) => form.id),
    DAYS,
  );
  const body = forms.length
    ? table({
        caption: 'Forms',
        columns: [
          { label: 'Form' },
          { label: 'Fields', numeric: true },
          { label: 'Double opt-in' },
          { label: `Submissions, ${DAYS} days`, numeric: true },
          { label: 'Hosted link' },
        ],
        rows: forms.map((form) => [
          html`<a href="${formPath(res, form.id)}">${form.name}</a>`,
          form.fields.length,
          form.doubleOptIn ? badge('on', 'info') : badge('off'),
          formatNumber(counts.get(form.id) ?? 0),
          copyButton(form.hostedUrl, 'Copy link'),
        ]),
      })
    : emptyState(
        'No forms yet',
        html`A form collects sign-ups on a hosted page or in your site, and makes or fills in the contact. <a href="${formsPath(res)}/new">Create the first one</a>.`,
      );
  sendPage(res, {
    title: 'Forms',
    section: 'forms',
    actions: html`<a class="button" href="${formsPath(res)}/new">New form</a>`,
    body,
  });
}

type Editor = { form: Form | null; draft: Draft; refusals: Refusals; status?: number };

function sendEditor(res: Response, editor: Editor) {
  const { form } = editor;
  const crumbs = [{ label: 'Forms', href: formsPath(res) }];
  if (form) crumbs.push({ label: form.name, href: formPath(res, form.id) });
  sendPage(res, {
    title: form ? `Edit ${form.name}` : 'New form',
    section: 'forms',
    crumbs,
    status: editor.status,
    body: editorForm(res, {
      action: form ? `${formPath(res, form.id)}/edit` : `${formsPath(res)}/new`,
      draft: editor.draft,
      refusals: editor.refusals,
      saveLabel: form ? 'Save form' : 'Create form',
    }),
  });
}

/** The draft through the API's schema (as the API would take it as JSON) and service. */
async function saveDraft(app: AppContext, workspaceId: string, form: Form | null, draft: Draft) {
  const body = bodyOf(draft, { clearEmpty: form !== null });
  if (form) return changeForm(app.db, app.config, workspaceId, form.id, parseForm(UpdateFormBody, body));
  return createForm(app.db, app.config, workspaceId, parseForm(CreateFormBody, body));
}

async function saveEditor(app: AppContext, req: Request, res: Response, formId: string | null) {
  const workspaceId = pageWorkspace(res).id;
  const form = formId ? await getForm(app.db, app.config, workspaceId, formId) : null;
  const draft = readDraft(req);
  const edited = applyEdit(draft, formText(req, 'op'));
  // An editing button: the same page again, with the change and everything typed kept.
  if (edited) return sendEditor(res, { form, draft: edited, refusals: new Map() });
  try {
    const saved = await saveDraft(app, workspaceId, form, draft);
    await redirectWithFlash(req, res, formPath(res, saved.id), form ? 'Form saved.' : 'Form created.');
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    sendEditor(res, { form, draft, refusals: refusalsOf(error.errors), status: 400 });
  }
}

/**
 * Without PUBLIC_URL the links start with the address the web process listens on, which only this
 * machine reaches: right for a first look on a laptop, wrong to share. Said where it is copied.
 */
function localLinkNote(form: Form): SafeHtml {
  return html`<p class="muted" id="public-url-note">These links start with ${new URL(form.hostedUrl).origin} because <code>PUBLIC_URL</code> is not set, so only this machine can open them. Set <code>PUBLIC_URL</code> to the address people reach this service at (the configuration guide, docs/operate/configuration.md).</p>`;
}

/** What to paste in a site: the hosted page in a frame (it runs no script and loads nothing else). */
function embedSnippet(form: Form): string {
  const height = 120 + form.fields.filter((field) => field.type !== 'hidden').length * 90;
  return `<iframe src="${escapeText(form.hostedUrl)}" title="${escapeText(form.name)}" width="100%" height="${height}" style="border:0" loading="lazy"></iframe>`;
}

const CONFIRMATION_KINDS = { none: 'neutral', pending: 'warning', confirmed: 'success' } as const;

function submittedValues(row: SubmissionListRow): SafeHtml {
  const pairs = Object.entries(row.fields).map(
    ([key, value]) =>
      html`<li><span class="muted">${key}:</span> ${value === true ? 'yes' : String(value)}</li>`,
  );
  return html`<ul class="submitted">${pairs}</ul>`;
}

function submissionsTable(res: Response, rows: SubmissionListRow[]): SafeHtml {
  const contacts = `${workspacePath(res)}/contacts`;
  return table({
    caption: 'Submissions, newest first',
    columns: [{ label: 'When' }, { label: 'Contact' }, { label: 'Confirmation' }, { label: 'Submitted' }],
    rows: rows.map((row) => [
      time(row.created_at),
      row.contact_id
        ? html`<a href="${contacts}/${encodeURIComponent(row.contact_id)}">${row.contact_email ?? row.contact_id}</a>`
        : html`<span class="muted">deleted</span>`,
      badge(row.confirmation, CONFIRMATION_KINDS[row.confirmation]),
      submittedValues(row),
    ]),
  });
}

const Position = z.tuple([z.string(), z.string()]);

async function formPage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const form = await getForm(app.db, app.config, workspaceId, String(req.params.formId));
  const after = readCursor(req.query.after, Position);
  const rows = await submissionPageOf(app.db, workspaceId, form.id, after, SUBMISSIONS_PER_PAGE + 1);
  const { shown, next } = pageOf(rows, SUBMISSIONS_PER_PAGE, (row) => [row.created_at, row.id]);
  const here = formPath(res, form.id);
  const fields = table({
    caption: 'Fields',
    columns: [
      { label: 'Label' },
      { label: 'Key' },
      { label: 'Type' },
      { label: 'Required' },
      { label: 'Saved as' },
    ],
    rows: form.fields.map((field) => [
      field.label,
      html`<code>${field.key}</code>`,
      field.type,
      field.required ? 'yes' : 'no',
      !field.mapTo
        ? html`<span class="muted">the submission only</span>`
        : 'contactField' in field.mapTo
          ? `contact ${field.mapTo.contactField}`
          : `attribute ${field.mapTo.attribute}`,
    ]),
  });
  const submissions = shown.length
    ? html`${submissionsTable(res, shown)}${pager({
        first: after ? here : null,
        next: next && withQuery(req.originalUrl, { after: next }),
      })}`
    : emptyState(
        after ? 'No more submissions' : 'No submissions yet',
        html`Share the hosted link or paste the embed snippet in a page of your site.`,
      );
  sendPage(res, {
    title: form.name,
    section: 'forms',
    crumbs: [{ label: 'Forms', href: formsPath(res) }],
    actions: html`<a class="button" href="${here}/edit">Edit</a> <a class="button danger" href="${here}/delete">Delete</a>`,
    body: html`${keyValueList([
      [
        'Hosted link',
        html`${copyButton(form.hostedUrl, 'Copy link')} <a href="/f/${encodeURIComponent(form.id)}" class="hosted-link">Open</a>`,
      ],
      [
        'Double opt-in',
        form.doubleOptIn ? 'on: the contact confirms by email before being subscribed' : 'off',
      ],
      ['Success message', form.successMessage],
      ['Redirect to', form.redirectUrl],
      ['Created', time(form.createdAt)],
      ['Changed', time(form.updatedAt)],
    ])}
${app.config.PUBLIC_URL ? '' : localLinkNote(form)}
<h2>Embed</h2>
<p>Paste this HTML in a page of your site: it shows the hosted form in a frame.</p>
<div class="embed-snippet">${copyButton(embedSnippet(form), 'Copy snippet')}</div>
<h2>Fields</h2>
${fields}
<h2 id="submissions">Submissions</h2>
${submissions}`,
  });
}

async function deletePage(app: AppContext, req: Request, res: Response) {
  const form = await getForm(app.db, app.config, pageWorkspace(res).id, String(req.params.formId));
  const here = formPath(res, form.id);
  sendPage(res, {
    title: `Delete ${form.name}?`,
    section: 'forms',
    crumbs: [
      { label: 'Forms', href: formsPath(res) },
      { label: form.name, href: here },
    ],
    body: html`<p>The form and all its submissions are deleted, and its hosted page answers “not found”: sites that embed it show nothing. Contacts it made or filled in stay. This cannot be undone.</p>
${confirmForm(res, {
  action: `${here}/delete`,
  label: 'Delete form',
  back: `${here}/delete`,
  confirm: { name: 'confirmName', expected: form.name, prompt: 'Type the form’s name to confirm' },
})}
<p><a href="${here}">Cancel</a></p>`,
  });
}

async function deletePost(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const form = await getForm(app.db, app.config, workspaceId, String(req.params.formId));
  if (formText(req, 'confirmName') !== form.name) {
    throw new ValidationError([
      { path: 'body.confirmName', message: 'must be the form’s name, exactly as shown' },
    ]);
  }
  await removeForm(app.db, workspaceId, form.id);
  await redirectWithFlash(req, res, formsPath(res), `Form “${form.name}” deleted.`);
}

function install(app: AppContext, router: Router) {
  const form = consoleForm();
  router.get('/forms', (_req, res) => listPage(app, res));
  router.get('/forms/new', (_req, res) =>
    sendEditor(res, { form: null, draft: STARTER, refusals: new Map() }),
  );
  router.post('/forms/new', form, (req, res) => saveEditor(app, req, res, null));
  router.get('/forms/:formId', (req, res) => formPage(app, req, res));
  router.get('/forms/:formId/edit', async (req, res) => {
    const current = await getForm(app.db, app.config, pageWorkspace(res).id, String(req.params.formId));
    sendEditor(res, { form: current, draft: draftOf(current), refusals: new Map() });
  });
  router.post('/forms/:formId/edit', form, (req, res) =>
    saveEditor(app, req, res, String(req.params.formId)),
  );
  router.get('/forms/:formId/delete', (req, res) => deletePage(app, req, res));
  router.post('/forms/:formId/delete', form, (req, res) => deletePost(app, req, res));
}

export function formConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: 'forms', label: 'Forms', key: 'f', order: 55 }],
    install: (router) => install(app, router),
  };
}
