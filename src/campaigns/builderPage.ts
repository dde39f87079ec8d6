// The campaign builder: create and edit a campaign as a form, beside the JSON editor (each links to
// the other). The whole draft round-trips in the form's fields, every change of its shape (add a
// step here, remove, up, down, add a path) is a submit button that re-renders the form with the
// draft, and nothing is saved until "Save", which goes through the API's schema and services: a
// refusal is shown at the field or step its path names, with a summary at the top linking to each.
// Only a draft's trigger and steps can change (as in the API): an active or paused campaign's page
// says so and offers its name and tracking; an archived one cannot be edited.

import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import {
  consoleForm,
  csrfField,
  html,
  pageWorkspace,
  redirectWithFlash,
  type SafeHtml,
  sendPage,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { AppError, ConflictError, ValidationError } from '../core/errors.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { listSegmentNames } from '../segments/index.ts';
import {
  anchorFor,
  anchorsOf,
  applyAction,
  blankDraft,
  type Draft,
  definitionToDraft,
  draftToDefinition,
  draftToPacing,
  type Fields,
  fieldOfPath,
  type PacingDraft,
  pacingToDraft,
  readDraft,
  readPacingDraft,
  stepKeyOf,
} from './builderForm.ts';
import { actionButton, checkbox, errorsAt, type Place, textInput } from './builderInputs.ts';
import { fieldLabel } from './builderSend.ts';
import { pacingSection, type Segments, settingsSection, stepList, triggerSection } from './builderSteps.ts';
import { campaignPath } from './consolePath.ts';
import { Pacing, readPacing, writePacing } from './pacing.ts';
import { CreateCampaignBody, UpdateCampaignBody } from './schemas.ts';
import { createCampaign, requireCampaign, toCampaign, updateCampaign } from './service.ts';

type Campaign = ReturnType<typeof toCampaign>;
/** A refusal: the form field (or step) its path names, and what is wrong. */
type Problem = { field: string | null; message: string };

// A campaign's form is larger than the console's other forms: many fields, and email bodies.
const builderForm = () => consoleForm({ limit: '2mb', parameterLimit: 10_000 });

type View = {
  campaign: Campaign | null;
  draft: Draft;
  pacing: PacingDraft;
  segments: Segments;
  problems: Problem[];
  focus: string | null;
  status?: number;
  json?: string;
};

/** Where a problem is shown, in words: "Step 2.then.0, subject". */
function placeLabel(anchor: string): string {
  const step = /^(steps.*\])(?:\.([^[\]]+))?$/.exec(anchor);
  if (!step) return anchor.split('.').map(fieldLabel).join(', ');
  const path = /^(.*)\.paths\[(\d+)\]$/.exec(step[1]!);
  const where = path
    ? `Step ${stepKeyOf(path[1]!)}, path ${Number(path[2]) + 1}`
    : `Step ${stepKeyOf(step[1]!)}`;
  return step[2] ? `${where}, ${step[2].split('.').map(fieldLabel).join(' ')}` : where;
}

/** The problems by the place they are shown at, and the summary linking to each. */
function placeProblems(view: View): { place: Place; summary: SafeHtml } {
  const anchors = anchorsOf(view.draft);
  anchors.add('json');
  const errors = new Map<string, string[]>();
  const items = view.problems.map((problem) => {
    const anchor = problem.field === null ? null : anchorFor(anchors, problem.field);
    if (anchor) errors.set(anchor, [...(errors.get(anchor) ?? []), problem.message]);
    return anchor
      ? html`<li><a href="#${anchor}">${placeLabel(anchor)}</a>: ${problem.message}</li>`
      : html`<li>${problem.message}</li>`;
  });
  const summary = items.length
    ? html`<div class="form-errors" role="alert" id="problems"><p>The campaign was not saved: ${
        items.length === 1 ? 'one problem' : `${items.length} problems`
      }, each shown at its field below.</p><ul>${items}</ul></div>`
    : html``;
  return { place: { errors, focus: view.focus }, summary };
}

function paths(res: Response, campaign: Campaign | null) {
  const list = `${workspacePath(res)}/campaigns`;
  const page = campaign ? `${list}/${encodeURIComponent(campaign.id)}` : null;
  return {
    list,
    page,
    form: page ? `${page}/form` : `${list}/new/form`,
    json: page ? `${page}/edit` : `${list}/new`,
  };
}

function sendBuilder(res: Response, view: View) {
  const { campaign, draft } = view;
  const to = paths(res, campaign);
  const { place, summary } = placeProblems(view);
  const ctx = { ...place, segments: view.segments };
  const json = view.json ?? JSON.stringify(draftToDefinition(draft).definition, null, 2);
  const crumbs = [{ label: 'Campaigns', href: to.list }];
  if (campaign && to.page) crumbs.push({ label: campaign.name, href: to.page });
  sendPage(res, {
    title: campaign ? `Edit ${campaign.name}` : 'New campaign',
    section: 'campaigns',
    crumbs,
    status: view.status,
    body: html`<div id="campaign-builder">${summary}
<p class="muted">Build the campaign step by step; nothing is saved until you press “${campaign ? 'Save draft' : 'Create draft'}”. Experts can <a href="${to.json}">edit it as JSON</a> instead.</p>
<form method="post" action="${to.form}" class="campaign-builder" novalidate>${csrfField(res)}
<p class="builder-apply">${actionButton('refresh', 'Update the form')} <span class="muted">(after choosing another channel: its fields)</span></p>
${textInput(place, { name: 'name', label: 'Name', value: draft.name, size: 40 })}
${triggerSection(ctx, draft.trigger)}
<fieldset id="steps" class="builder-section"><legend>Steps</legend>${errorsAt(place, 'steps')}
${stepList(ctx, draft.steps, 'steps')}</fieldset>
${settingsSection(ctx, draft)}
${pacingSection(ctx, view.pacing)}
<details class="builder-json"${place.errors.get('json') ? html` open` : ''}><summary>JSON view</summary>
${textInput(place, { name: 'json', label: 'The definition as JSON (as the API’s POST …/campaigns takes it)', value: json, rows: 16 })}
<p>${actionButton('json', 'Use this JSON in the form')} <a href="${to.json}">Open the JSON editor</a></p>
</details>
<p class="form-actions"><button type="submit" name="action" value="save">${campaign ? 'Save draft' : 'Create draft'}</button> <a href="${to.page ?? to.list}">Cancel</a></p>
</form></div>`,
  });
}

/** An active or paused campaign: its trigger and steps are fixed; its name and tracking are not. */
function sendRunning(res: Response, campaign: Campaign, problems: Problem[] = [], status?: number) {
  const to = paths(res, campaign);
  const place: Place = { errors: new Map(), focus: null };
  for (const p of problems)
    if (p.field) place.errors.set(p.field, [...(place.errors.get(p.field) ?? []), p.message]);
  const general = problems.filter((p) => !p.field);
  sendPage(res, {
    title: `Edit ${campaign.name}`,
    section: 'campaigns',
    crumbs: [
      { label: 'Campaigns', href: to.list },
      { label: campaign.name, href: to.page! },
    ],
    status,
    body: html`${general.length ? html`<div class="form-errors" role="alert"><ul>${general.map((p) => html`<li>${p.message}</li>`)}</ul></div>` : ''}
<p>This campaign is ${campaign.status}: its trigger and steps cannot change (its enrollments follow them). Only its name and tracking can; to change the flow, create a new campaign or edit a draft. <a href="${to.page}">See its flow</a>.</p>
<form method="post" action="${to.form}" class="stack">${csrfField(res)}
${textInput(place, { name: 'name', label: 'Name', value: campaign.name, size: 40 })}
<fieldset id="tracking"><legend>Email tracking</legend>${checkbox({ name: 'tracking.opens', label: 'Track opens', checked: campaign.tracking.opens })}${checkbox({ name: 'tracking.clicks', label: 'Track clicks', checked: campaign.tracking.clicks })}</fieldset>
<p class="form-actions"><button type="submit" name="action" value="save">Save</button> <a href="${to.page}">Cancel</a></p>
</form>`,
  });
}

function definitionOf(campaign: Campaign) {
  return { ...campaign, goal: campaign.goal ?? undefined } as unknown as Record<string, unknown>;
}

async function loadCampaign(app: AppContext, res: Response, id: string | null) {
  if (id === null) return null;
  const campaign = toCampaign(await requireCampaign(app.db, pageWorkspace(res).id, id));
  if (campaign.status === 'archived')
    throw new ConflictError('An archived campaign cannot be edited.', 'campaign-archived');
  return campaign;
}

async function builderPage(app: AppContext, res: Response, id: string | null) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = await loadCampaign(app, res, id);
  if (campaign && campaign.status !== 'draft') return sendRunning(res, campaign);
  const [segments, pacing] = await Promise.all([
    listSegmentNames(app.db, workspaceId),
    readPacing(app.db, workspaceId),
  ]);
  sendBuilder(res, {
    campaign,
    draft: campaign ? definitionToDraft(definitionOf(campaign)) : blankDraft(),
    pacing: pacingToDraft(pacing),
    segments,
    problems: [],
    focus: null,
  });
}

const issuesAt = (issues: Parameters<typeof zodIssuesToFieldErrors>[0], location: string): Problem[] =>
  zodIssuesToFieldErrors(issues, location).map((e) => ({
    field: fieldOfPath(e.path) || null,
    message: e.message,
  }));

/** A service's refusal as problems (a template that does not parse, a segment that is not here). */
function refusalProblems(error: unknown): Problem[] | null {
  if (error instanceof ValidationError)
    return error.errors.map((e) => ({ field: fieldOfPath(e.path) || null, message: e.message }));
  if (error instanceof AppError && error.status < 500) return [{ field: null, message: error.message }];
  return null;
}

type PaceLimits = Pick<z.output<typeof Pacing>, 'frequencyCap' | 'quietHours'>;
const limitsOf = ({ frequencyCap: cap, quietHours: quiet }: PaceLimits) =>
  JSON.stringify([cap?.count, cap?.per, quiet?.start, quiet?.end]);

/** JSON with every object's keys sorted: the database keeps a definition's keys in its own order. */
const canonical = (value: unknown) =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

/** Whether saving would change nothing (no new version, no audit entry for it). */
function sameDefinition(campaign: Campaign, next: z.output<typeof CreateCampaignBody>) {
  const { name, trigger, steps, reentry, goal, tracking } = campaign;
  return (
    canonical({ name, trigger, steps, reentry, goal, tracking }) ===
    canonical({ ...next, goal: next.goal ?? null, tracking: next.tracking ?? tracking })
  );
}

async function saveDraft(app: AppContext, req: Request, res: Response, view: View) {
  const workspaceId = pageWorkspace(res).id;
  const { definition, problems: unread } = draftToDefinition(view.draft);
  const problems: Problem[] = [...unread];
  const parsed = CreateCampaignBody.safeParse(definition);
  if (!parsed.success) problems.push(...issuesAt(parsed.error.issues, 'body'));
  const current = await readPacing(app.db, workspaceId);
  const pacing = Pacing.safeParse({ ...current, ...draftToPacing(view.pacing) });
  if (!pacing.success) problems.push(...issuesAt(pacing.error.issues, 'pacing'));
  if (!parsed.success || !pacing.success || problems.length > 0)
    return sendBuilder(res, { ...view, problems, status: 400 });
  const pacingChanged = limitsOf(current) !== limitsOf(pacing.data);
  const { campaign } = view;
  if (campaign && !pacingChanged && sameDefinition(campaign, parsed.data)) {
    const path = campaignPath(res, campaign.id);
    return redirectWithFlash(req, res, path, 'Nothing changed.');
  }
  try {
    const saved = await app.db.transaction(async (tx) => {
      const result = campaign
        ? await updateCampaign(tx, workspaceId, campaign.id, {
            ...parsed.data,
            goal: parsed.data.goal ?? null,
          })
        : await createCampaign(tx, workspaceId, parsed.data);
      if (pacingChanged) await writePacing(tx, workspaceId, pacing.data);
      return result;
    });
    const note = pacingChanged ? ' The workspace’s frequency cap and quiet hours were changed.' : '';
    const path = campaignPath(res, saved.id);
    return redirectWithFlash(
      req,
      res,
      path,
      `${campaign ? 'Draft saved.' : 'Draft campaign created.'}${note}`,
    );
  } catch (error) {
    const refused = refusalProblems(error);
    if (!refused) throw error;
    return sendBuilder(res, {
      ...view,
      problems: refused,
      status: error instanceof AppError ? error.status : 400,
    });
  }
}

async function saveRunning(app: AppContext, req: Request, res: Response, campaign: Campaign) {
  const body = req.body as Fields;
  const patch = UpdateCampaignBody.safeParse({
    name: typeof body.name === 'string' ? body.name : '',
    tracking: { opens: body['tracking.opens'] === 'on', clicks: body['tracking.clicks'] === 'on' },
  });
  if (!patch.success) return sendRunning(res, campaign, issuesAt(patch.error.issues, 'body'), 400);
  await app.db.transaction((tx) => updateCampaign(tx, pageWorkspace(res).id, campaign.id, patch.data));
  const path = campaignPath(res, campaign.id);
  return redirectWithFlash(req, res, path, 'Campaign saved.');
}

/** "Use this JSON": the expert's definition, read into the form (checked only at save). */
function fromJson(text: string): { draft: Draft } | { problem: Problem } {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value))
      return { draft: definitionToDraft(value as Record<string, unknown>) };
    return { problem: { field: 'json', message: 'must be a JSON object: {name, trigger, steps, …}' } };
  } catch (error) {
    return { problem: { field: 'json', message: `is not valid JSON: ${(error as Error).message}` } };
  }
}

async function builderPost(app: AppContext, req: Request, res: Response, id: string | null) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = await loadCampaign(app, res, id);
  if (campaign && campaign.status !== 'draft') return saveRunning(app, req, res, campaign);
  const body = req.body as Fields;
  const action = typeof body.action === 'string' ? body.action : 'refresh';
  const view: View = {
    campaign,
    draft: readDraft(body),
    pacing: readPacingDraft(body),
    segments: await listSegmentNames(app.db, workspaceId),
    problems: [],
    focus: null,
  };
  if (action === 'save') return saveDraft(app, req, res, view);
  if (action === 'json') {
    const read = fromJson(typeof body.json === 'string' ? body.json : '');
    if ('problem' in read)
      return sendBuilder(res, { ...view, problems: [read.problem], json: String(body.json), status: 400 });
    return sendBuilder(res, { ...view, draft: read.draft });
  }
  const focus = applyAction(view.draft, action);
  sendBuilder(res, { ...view, focus });
}

export function installBuilder(app: AppContext, router: Router) {
  const form = builderForm();
  router.get('/campaigns/new/form', (_req, res) => builderPage(app, res, null));
  router.post('/campaigns/new/form', form, (req, res) => builderPost(app, req, res, null));
  router.get('/campaigns/:campaignId/form', (req, res) =>
    builderPage(app, res, String(req.params.campaignId)),
  );
  router.post('/campaigns/:campaignId/form', form, (req, res) =>
    builderPost(app, req, res, String(req.params.campaignId)),
  );
}
