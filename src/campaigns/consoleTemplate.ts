// The template editor of a campaign's send step: /app/{ws}/campaigns/{id}/steps/{stepKey}/template.
// The channel's fields (from the registry's step schema), saved through updateCampaign as the API's
// PATCH saves them (a draft's steps only); a preview rendered for a contact picked by email, at
// desktop and phone widths (HTML in a sandboxed frame) and as text, with Liquid problems at their
// line and column, refreshed as one types (htmx posts the form to …/template/preview) or by the
// Preview button without JavaScript; the variables a template may use, with the picked contact's
// values; and a test send of the saved step to a typed address (testSend.ts).
import type { Request, Response, Router } from 'express';
import { channelNamed, type RenderedContent } from '../channels/index.ts';
import {
  consoleForm,
  consoleState,
  csrfField,
  formText,
  html,
  keyValueList,
  pageWorkspace,
  redirectWithFlash,
  type SafeHtml,
  sendPage,
  table,
  withQuery,
  workspacePath,
} from '../console/index.ts';
import { type ContactRow, findContact, searchContacts } from '../contacts/index.ts';
import type { AppContext } from '../core/context.ts';
import { NotFoundError, ValidationError } from '../core/errors.ts';
import { TemplateError } from '../templates/index.ts';
import { campaignPath } from './consolePath.ts';
import {
  type FieldProblem,
  type FieldSpec,
  fieldControls,
  fieldLabel,
  fieldsOf,
  problemText,
  readStep,
  valuesOfForm,
  valuesOfStep,
} from './consoleTemplateForm.ts';
import {
  attributeNamesSeen,
  eventMetadataNamesSeen,
  latestEventOf,
  NAME_SAMPLE,
} from './consoleTemplateQueries.ts';
import { stepAt } from './flow.ts';
import { renderStep } from './preview.ts';
import type { CampaignTrigger, SendStep } from './schemas.ts';
import { requireCampaign, toCampaign, updateCampaign } from './service.ts';
import { sendStepTest } from './testSend.ts';

type Campaign = ReturnType<typeof toCampaign>;
const SEARCH_RESULTS = 10;
/** The search reads the trigram index from this many characters on. */
const SEARCH_MIN = 3;

/** The campaign and its send step the URL names; anything else (another workspace's, a wait) is 404. */
type Target = { campaign: Campaign; key: string; step: SendStep; fields: FieldSpec[]; path: string };

async function targetOf(app: AppContext, req: Request, res: Response): Promise<Target> {
  const workspaceId = pageWorkspace(res).id;
  const campaign = toCampaign(await requireCampaign(app.db, workspaceId, String(req.params.campaignId)));
  const key = String(req.params.stepKey);
  const step = stepAt(campaign.steps, key);
  if (step?.type !== 'send') throw new NotFoundError('Send step');
  const path = `${campaignPath(res, campaign.id)}/steps/${encodeURIComponent(key)}/template`;
  return { campaign, key, step, fields: fieldsOf(channelNamed(step.channel)), path };
}

const editable = (campaign: Campaign) => campaign.status === 'draft';
const eventTypeOf = (trigger: CampaignTrigger) => (trigger.type === 'event' ? trigger.eventType : null);

/** The contact a preview is rendered for (by id, in this workspace), or null. */
async function pickedContact(app: AppContext, workspaceId: string, id: string): Promise<ContactRow | null> {
  if (!id) return null;
  return findContact(app.db, workspaceId, id);
}

// ---- The preview ----

type Preview =
  | { kind: 'none' }
  | { kind: 'problems'; problems: FieldProblem[] }
  | { kind: 'rendered'; rendered: RenderedContent; variables: Record<string, unknown> };

async function previewOf(
  app: AppContext,
  res: Response,
  target: Target,
  read: ReturnType<typeof readStep>,
  contact: ContactRow | null,
): Promise<Preview> {
  if (!read.step) return { kind: 'problems', problems: read.problems };
  if (!contact) return { kind: 'none' };
  const workspaceId = pageWorkspace(res).id;
  const eventType = eventTypeOf(target.campaign.trigger);
  const triggerEventId = eventType ? await latestEventOf(app.db, workspaceId, contact.id, eventType) : null;
  try {
    const built = await renderStep(app, workspaceId, read.step, {
      campaignId: target.campaign.id,
      contactId: contact.id,
      triggerEventId,
    });
    return { kind: 'rendered', rendered: built.rendered, variables: built.variables };
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    const field = error.field ?? 'template';
    return {
      kind: 'problems',
      problems: [{ field, line: error.line, column: error.column, message: error.message }],
    };
  }
}

/**
 * The HTML as sent, in a frame that runs nothing (sandbox without allow-scripts or same-origin,
 * the markup escaped into srcdoc) and loads no remote image: a preview is not an open.
 */
function frame(markup: string, width: 'desktop' | 'phone'): SafeHtml {
  const policy = html`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">`;
  const label = width === 'desktop' ? 'HTML at desktop width' : 'HTML at phone width (375 px)';
  return html`<figure class="template-frame template-frame-${width}"><figcaption>${label}</figcaption>
<iframe sandbox="" referrerpolicy="no-referrer" title="${label}" srcdoc="${`${policy}${markup}`}"></iframe></figure>`;
}

function renderedParts(rendered: RenderedContent): SafeHtml {
  const pairs: [string, string][] = [];
  const blocks: SafeHtml[] = [];
  for (const [name, value] of Object.entries(rendered)) {
    if (name === 'channel' || value == null) continue;
    if (name === 'html' && typeof value === 'string') {
      blocks.push(
        html`<div class="template-frames">${frame(value, 'desktop')}${frame(value, 'phone')}</div>`,
      );
    } else if (typeof value === 'string' && (name === 'text' || value.includes('\n') || value.length > 120)) {
      blocks.push(html`<h3>${fieldLabel(name)}</h3><pre class="message-text">${value}</pre>`);
    } else {
      pairs.push([fieldLabel(name), typeof value === 'object' ? JSON.stringify(value) : String(value)]);
    }
  }
  return html`${pairs.length > 0 ? keyValueList(pairs) : ''}${blocks}`;
}

export function previewSection(preview: Preview): SafeHtml {
  let body: SafeHtml;
  if (preview.kind === 'problems') {
    body = html`<div class="flash flash-error template-problems" role="alert"><p>The template cannot be rendered:</p><ul>${preview.problems.map(
      (p) => html`<li>${problemText(p)}</li>`,
    )}</ul></div>`;
  } else if (preview.kind === 'none') {
    body = html`<p class="muted">Pick a contact above to see the message as they would get it.</p>`;
  } else {
    body = renderedParts(preview.rendered);
  }
  return html`<section id="template-preview" aria-live="polite" aria-labelledby="preview-heading"><h2 id="preview-heading">Preview</h2>${body}</section>`;
}

// ---- The variables a template may use ----

/** A variable's name as Liquid reads it: dotted when it can be, quoted otherwise. */
const member = (base: string, name: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${base}.${name}` : `${base}[${JSON.stringify(name)}]`;

function shown(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

async function variablesSection(app: AppContext, res: Response, target: Target, preview: Preview) {
  const workspaceId = pageWorkspace(res).id;
  const eventType = eventTypeOf(target.campaign.trigger);
  const [attributes, metadata] = await Promise.all([
    attributeNamesSeen(app.db, workspaceId),
    eventType ? eventMetadataNamesSeen(app.db, workspaceId, eventType) : [],
  ]);
  const vars = (preview.kind === 'rendered' ? preview.variables : {}) as {
    contact?: Record<string, unknown> & { attributes?: Record<string, unknown> };
    event?: { type: string; metadata?: Record<string, unknown> };
    campaign?: Record<string, unknown>;
    workspace?: Record<string, unknown>;
    message?: Record<string, unknown>;
  };
  const own = Object.keys(vars.contact?.attributes ?? {});
  const rows: [string, string, unknown][] = [
    ...['email', 'firstName', 'lastName', 'phone', 'leadScore'].map(
      (name) =>
        [`contact.${name}`, 'The contact’s own field', vars.contact?.[name]] as [string, string, unknown],
    ),
    ...[...new Set([...attributes, ...own])]
      .sort()
      .map(
        (name) =>
          [
            member('contact.attributes', name),
            'An attribute of contacts',
            vars.contact?.attributes?.[name],
          ] as [string, string, unknown],
      ),
  ];
  if (eventType) {
    rows.push(['event.type', 'The event that enrolled the contact', vars.event?.type ?? eventType]);
    for (const name of metadata)
      rows.push([
        member('event.metadata', name),
        `Of the “${eventType}” event`,
        vars.event?.metadata?.[name],
      ]);
  }
  rows.push(
    ['campaign.name', 'This campaign', vars.campaign?.name ?? target.campaign.name],
    ['campaign.id', 'This campaign', target.campaign.id],
    ['workspace.name', 'This workspace', vars.workspace?.name ?? pageWorkspace(res).name],
    ['message.id', 'The message’s own id', 'set for each message'],
    ['unsubscribe_url', 'The contact’s one-click unsubscribe link', 'signed for each message'],
  );
  const note = eventType
    ? `The event’s fields are those of the contact’s latest “${eventType}” event; the names listed are those seen in the latest ${NAME_SAMPLE} such events.`
    : 'This campaign is not started by an event: event variables render empty.';
  return html`<section aria-labelledby="variables-heading"><h2 id="variables-heading">Variables</h2>
<p class="muted">Write <code>{{ contact.firstName | default: "there" }}</code> for a value with a fallback. Attribute names are those of the newest ${NAME_SAMPLE} contacts and of the picked one. ${note}</p>
${table({
  caption: 'Variables a template may use, with the picked contact’s values',
  columns: [{ label: 'Variable' }, { label: 'What' }, { label: 'Value for the picked contact' }],
  rows: rows.map(([name, what, value]) => [html`<code>{{ ${name} }}</code>`, what, shown(value)]),
})}</section>`;
}

// ---- The page ----

function contactPicker(
  req: Request,
  target: Target,
  contact: ContactRow | null,
  found: readonly ContactRow[] | null,
) {
  const q = typeof req.query.q === 'string' ? req.query.q : '';
  const picked = contact
    ? html`<p>Previewing for <strong>${contact.email ?? contact.id}</strong>${
        contact.first_name || contact.last_name
          ? html` (${[contact.first_name, contact.last_name].filter(Boolean).join(' ')})`
          : ''
      }.</p>`
    : '';
  const results =
    found === null
      ? q.trim()
        ? html`<p class="muted">Type at least ${SEARCH_MIN} characters of an email or a name.</p>`
        : ''
      : found.length === 0
        ? html`<p class="muted">No contact matches “${q}”.</p>`
        : html`<ul class="template-contacts">${found.map(
            (c) =>
              html`<li><a href="${withQuery(target.path, { contact: c.id })}">${c.email ?? c.id}</a>${
                c.first_name ? html` <span class="muted">${c.first_name}</span>` : ''
              }</li>`,
          )}</ul>`;
  return html`<form method="get" action="${target.path}" class="panel template-picker" role="search">
<label for="contact-q">Preview for a contact: search by email or name</label>
<input id="contact-q" name="q" type="search" value="${q}" autocomplete="off" placeholder="someone@example.com">
<button type="submit">Find</button></form>${picked}${results}`;
}

function testSendForm(res: Response, target: Target, contact: ContactRow | null): SafeHtml {
  const testSend = channelNamed(target.step.channel).testSend;
  if (!testSend) {
    return html`<p class="muted">${channelNamed(target.step.channel).title} reaches people by no address one can type: there is no test send for this step.</p>`;
  }
  if (!contact) return html`<p class="muted">Pick a contact first: the test is rendered for them.</p>`;
  return html`<form method="post" action="${target.path}/test" class="panel">${csrfField(res)}
<input type="hidden" name="contact" value="${contact.id}">
<input type="hidden" name="_back" value="${withQuery(target.path, { contact: contact.id })}">
<p><label for="test-to">${testSend.label}</label>
<input id="test-to" name="to" type="${testSend.inputType}" required autocomplete="off"></p>
<p class="muted">Sends the <strong>saved</strong> template rendered for ${contact.email ?? contact.id}, marked “[Test]”, through this workspace’s ${testSend.label.toLowerCase().includes('email') ? 'mail server' : 'channel'}. It counts in no report and is recorded in the audit log.</p>
<p><button type="submit">Send a test</button></p></form>`;
}

type View = {
  target: Target;
  values: Record<string, string>;
  problems: FieldProblem[];
  preview: Preview;
  contact: ContactRow | null;
  found: readonly ContactRow[] | null;
  status?: number;
  saveErrors?: string[];
};

async function sendEditorPage(app: AppContext, req: Request, res: Response, view: View) {
  const { target, contact } = view;
  const { campaign } = target;
  const channel = channelNamed(target.step.channel);
  const canSave = editable(campaign);
  const campaignHref = campaignPath(res, campaign.id);
  const notice = canSave
    ? ''
    : html`<p class="flash">This campaign is ${campaign.status}: its steps no longer change (its enrollments follow them). Preview and test sends still work; to change the template, create a new campaign.</p>`;
  const saveErrors = view.saveErrors?.length
    ? html`<div class="flash flash-error" role="alert"><p>The template was not saved:</p><ul>${view.saveErrors.map((e) => html`<li>${e}</li>`)}</ul></div>`
    : '';
  sendPage(res, {
    title: `Step ${target.key}: ${channel.title} template`,
    section: 'campaigns',
    status: view.status,
    crumbs: [
      { label: 'Campaigns', href: `${workspacePath(res)}/campaigns` },
      { label: campaign.name, href: campaignHref },
    ],
    body: html`${notice}${saveErrors}${contactPicker(req, target, contact, view.found)}
<div class="template-editor">
<form method="post" action="${target.path}" class="template-form" hx-post="${target.path}/preview" hx-trigger="input changed delay:400ms, change" hx-target="#template-preview" hx-swap="outerHTML">${csrfField(res)}
<input type="hidden" name="contact" value="${contact?.id ?? ''}">
${fieldControls(target.fields, view.values, view.problems, !canSave)}
<p class="form-actions">${canSave ? html`<button type="submit" name="action" value="save">Save template</button> ` : ''}<button type="submit" name="action" value="preview" class="quiet" formnovalidate>Preview</button></p>
</form>
${previewSection(view.preview)}
</div>
<h2>Test send</h2>
${testSendForm(res, target, contact)}
${await variablesSection(app, res, target, view.preview)}`,
  });
}

async function editorPage(app: AppContext, req: Request, res: Response) {
  const target = await targetOf(app, req, res);
  const workspaceId = pageWorkspace(res).id;
  const contact = await pickedContact(
    app,
    workspaceId,
    typeof req.query.contact === 'string' ? req.query.contact : '',
  );
  const q = typeof req.query.q === 'string' ? req.query.q.trim() : '';
  // Fewer letters than a trigram would read every contact of the workspace.
  const found =
    q.length >= SEARCH_MIN
      ? await searchContacts(
          app.db,
          workspaceId,
          { q },
          { sort: 'newest', after: null, limit: SEARCH_RESULTS },
        )
      : null;
  const values = valuesOfStep(target.step, target.fields);
  const read = readStep(target.step.channel, target.fields, values);
  const preview = await previewOf(app, res, target, read, contact);
  await sendEditorPage(app, req, res, { target, values, problems: [], preview, contact, found });
}

/** The step with the edited one in its place (the tree copied: the campaign row stays as read). */
function stepsWith(campaign: Campaign, key: string, step: SendStep) {
  const steps = structuredClone(campaign.steps);
  const slot = stepAt(steps, key) as Record<string, unknown>;
  for (const name of Object.keys(slot)) delete slot[name];
  Object.assign(slot, step);
  return steps;
}

/** The Preview button (no JavaScript) re-renders the page with the form's values; Save saves them. */
async function editorPost(app: AppContext, req: Request, res: Response) {
  const target = await targetOf(app, req, res);
  const workspaceId = pageWorkspace(res).id;
  const contact = await pickedContact(app, workspaceId, formText(req, 'contact'));
  const values = valuesOfForm(req.body, target.fields);
  const read = readStep(target.step.channel, target.fields, values);
  const preview = await previewOf(app, res, target, read, contact);
  const view = { target, values, problems: read.problems, preview, contact, found: null };
  if (formText(req, 'action') !== 'save') return sendEditorPage(app, req, res, view);
  if (!read.step)
    return sendEditorPage(app, req, res, {
      ...view,
      status: 400,
      saveErrors: read.problems.map(problemText),
    });
  try {
    await app.db.transaction((tx) =>
      updateCampaign(tx, workspaceId, target.campaign.id, {
        steps: stepsWith(target.campaign, target.key, read.step!),
      }),
    );
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const lines = error.errors.map((e) => e.message);
    return sendEditorPage(app, req, res, { ...view, status: 400, saveErrors: lines });
  }
  const back = contact ? withQuery(target.path, { contact: contact.id }) : target.path;
  await redirectWithFlash(req, res, back, 'Template saved.');
}

/** htmx's live preview: the form as it stands, answered with the preview section alone. */
async function livePreview(app: AppContext, req: Request, res: Response) {
  const target = await targetOf(app, req, res);
  const contact = await pickedContact(app, pageWorkspace(res).id, formText(req, 'contact'));
  const read = readStep(target.step.channel, target.fields, valuesOfForm(req.body, target.fields));
  res.type('html').send(previewSection(await previewOf(app, res, target, read, contact)).toString());
}

async function testPost(app: AppContext, req: Request, res: Response) {
  const target = await targetOf(app, req, res);
  const workspaceId = pageWorkspace(res).id;
  const contact = await pickedContact(app, workspaceId, formText(req, 'contact'));
  if (!contact)
    throw new ValidationError([{ path: 'contact', message: 'pick a contact of this workspace first' }]);
  const eventType = eventTypeOf(target.campaign.trigger);
  const to = formText(req, 'to');
  let outcome: Awaited<ReturnType<typeof sendStepTest>>;
  try {
    outcome = await sendStepTest(app, workspaceId, {
      userId: consoleState(res).user.id,
      campaignId: target.campaign.id,
      stepKey: target.key,
      step: target.step,
      contactId: contact.id,
      triggerEventId: eventType ? await latestEventOf(app.db, workspaceId, contact.id, eventType) : null,
      to,
    });
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    const problem = {
      field: error.field ?? 'template',
      line: error.line,
      column: error.column,
      message: error.message,
    };
    throw new ValidationError([{ path: 'template', message: problemText(problem) }]);
  }
  const back = withQuery(target.path, { contact: contact.id });
  if (outcome.status === 'sent')
    return redirectWithFlash(req, res, back, `Test sent to ${to} (${outcome.response}).`);
  await redirectWithFlash(req, res, back, `The test was not sent: ${outcome.error}`, 'error');
}

export function installTemplateEditor(app: AppContext, router: Router) {
  const form = consoleForm();
  const path = '/campaigns/:campaignId/steps/:stepKey/template';
  router.get(path, (req, res) => editorPage(app, req, res));
  router.post(path, form, (req, res) => editorPost(app, req, res));
  router.post(`${path}/preview`, form, (req, res) => livePreview(app, req, res));
  router.post(`${path}/test`, form, (req, res) => testPost(app, req, res));
}
