// The campaigns section of the console: the list (status, trigger, enrollments, and sent, human
// opens and human clicks per day over 30 days as sparklines), a campaign's page (its flow drawn with
// each step's numbers now), the JSON editor to create and edit one (the definition as the API takes
// it, refusals listed with the path they name), and activate / pause / resume / archive behind a
// page that says what will happen. Pages call the API's services with the API's roles: any member
// may write campaigns.
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import {
  type BadgeKind,
  badge,
  type ConsolePages,
  consoleForm,
  csrfField,
  emptyState,
  formatNumber,
  formText,
  html,
  keyValueList,
  pageWorkspace,
  postForm,
  redirectWithFlash,
  type SafeHtml,
  sendPage,
  sparkline,
  table,
  time,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { lastUtcDays } from '../core/days.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../core/errors.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { segmentVersion } from '../segments/index.ts';
import { installBuilder } from './builderPage.ts';
import { installAudiencePage } from './consoleAudience.ts';
import { type FlowFigures, flowDiagram, type StepFigures, stepHeading } from './consoleFlow.ts';
import { campaignPath } from './consolePath.ts';
import { dailyFiguresOf, enrollmentCountsOf, segmentNamesOf, stepFiguresOf } from './consoleQueries.ts';
import { installTemplateEditor } from './consoleTemplate.ts';
import { allSteps } from './flow.ts';
import { type Transition, transitionCampaign, transitionsFrom } from './lifecycle.ts';
import { campaignReport } from './report.ts';
import type { CampaignReport } from './reportSchemas.ts';
import { type CampaignTrigger, CreateCampaignBody } from './schemas.ts';
import { createCampaign, listCampaignPage, requireCampaign, toCampaign, updateCampaign } from './service.ts';

const DAYS = 30;
/** The list shows the newest campaigns first, this many (the API pages the rest). */
const LIST_LIMIT = 200;
const STATUS_KINDS: Record<string, BadgeKind> = {
  draft: 'neutral',
  active: 'success',
  paused: 'warning',
  archived: 'neutral',
};

type Campaign = ReturnType<typeof toCampaign>;
type Report = z.output<typeof CampaignReport>;
type DayFigures = { sent: number[]; opens: number[]; clicks: number[] };

/** The trigger in words; `names` gives segments' names (an id stays shown if it has none). */
function triggerWords(trigger: CampaignTrigger, names: Map<string, string> = new Map()): string {
  switch (trigger.type) {
    case 'event':
      return `On each “${trigger.eventType}” event${trigger.where?.length ? ' (filtered)' : ''}`;
    case 'segment_entered':
      return `On entering the segment “${names.get(trigger.segmentId) ?? trigger.segmentId}”`;
    case 'broadcast':
      return `Broadcast to the segment “${names.get(trigger.segmentId) ?? trigger.segmentId}”${trigger.sendAt ? ` at ${trigger.sendAt}` : ' on activation'}`;
  }
}

const segmentOf = (trigger: CampaignTrigger) => ('segmentId' in trigger ? [trigger.segmentId] : []);

/** The segments a campaign names: its trigger's, and those its branches test. */
function segmentsOfCampaign(campaign: Campaign): string[] {
  const branches = allSteps(campaign.steps).flatMap(({ step }) =>
    step.type === 'branch' && 'segment' in step.if ? [step.if.segment] : [],
  );
  return [...new Set([...segmentOf(campaign.trigger), ...branches])];
}

async function dailyFigures(app: AppContext, workspaceId: string, ids: string[]) {
  const days = lastUtcDays(DAYS);
  const rows = await dailyFiguresOf(app.db, workspaceId, ids, days[0]!);
  const found = new Map(rows.map((row) => [`${row.campaign_id} ${row.day}`, row]));
  const out = new Map<string, DayFigures>();
  for (const id of ids) {
    const row = (day: string) => found.get(`${id} ${day}`);
    out.set(id, {
      sent: days.map((day) => row(day)?.sent ?? 0),
      opens: days.map((day) => row(day)?.opens ?? 0),
      clicks: days.map((day) => row(day)?.clicks ?? 0),
    });
  }
  return out;
}

function trend(values: number[], what: string): SafeHtml {
  const total = values.reduce((sum, v) => sum + v, 0);
  return html`<span class="activity">${sparkline(values, {
    label: `${what} per day over ${DAYS} days: ${total} in all`,
    width: 90,
    height: 20,
  })} ${formatNumber(total)}</span>`;
}

async function listPage(app: AppContext, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const base = workspacePath(res);
  const page = await listCampaignPage(app.db, workspaceId, {}, { page: 1, limit: LIST_LIMIT });
  const ids = page.data.map((c) => c.id);
  const [counts, figures, names] = await Promise.all([
    enrollmentCountsOf(app.db, workspaceId, ids),
    dailyFigures(app, workspaceId, ids),
    segmentNamesOf(app.db, workspaceId, [...new Set(page.data.flatMap((c) => segmentOf(c.trigger)))]),
  ]);
  const countsOf = new Map(counts.map((row) => [row.campaign_id, row]));
  const body = page.data.length
    ? table({
        caption: 'Campaigns',
        columns: [
          { label: 'Campaign' },
          { label: 'Status' },
          { label: 'Enrolled / active / completed', numeric: true },
          { label: `Sent, ${DAYS} days` },
          { label: `Human opens, ${DAYS} days` },
          { label: `Human clicks, ${DAYS} days` },
        ],
        rows: page.data.map((campaign) => {
          const c = countsOf.get(campaign.id);
          const days = figures.get(campaign.id)!;
          return [
            html`<a href="${base}/campaigns/${encodeURIComponent(campaign.id)}">${campaign.name}</a><br><span class="muted">${triggerWords(campaign.trigger, names)}</span>`,
            badge(campaign.status, STATUS_KINDS[campaign.status]),
            `${formatNumber(c?.enrolled ?? 0)} / ${formatNumber(c?.active ?? 0)} / ${formatNumber(c?.completed ?? 0)}`,
            trend(days.sent, 'Messages sent'),
            trend(days.opens, 'Messages opened by a person'),
            trend(days.clicks, 'Messages clicked by a person'),
          ];
        }),
      })
    : emptyState(
        'No campaigns yet',
        html`A campaign sends messages step by step to the contacts its trigger enrolls. <a href="${base}/campaigns/new/form">Create the first one</a>.`,
      );
  const more =
    page.total > page.data.length
      ? html`<p class="muted">The newest ${LIST_LIMIT} of ${formatNumber(page.total)} campaigns are shown.</p>`
      : '';
  sendPage(res, {
    title: 'Campaigns',
    section: 'campaigns',
    actions: html`<a class="button" href="${base}/campaigns/new/form">New campaign</a> <a class="button" href="${base}/campaigns/new">New from JSON</a>`,
    body: html`${body}${more}`,
  });
}

/** Each step's numbers now: the report's, with the waiting and delivered counts beside them. */
function flowFigures(report: Report, now: Awaited<ReturnType<typeof stepFiguresOf>>): FlowFigures {
  const nowOf = new Map(now.map((row) => [row.step_key, row]));
  const steps = new Map<string, StepFigures>();
  for (const step of report.steps) {
    const here = nowOf.get(step.stepKey);
    const figures: StepFigures = { waiting: here?.waiting ?? 0 };
    if (step.messages) {
      const m = step.messages;
      figures.reached = m.queued + m.sent + m.failed + m.bounced + m.suppressed;
      figures.sent = m.sent;
      figures.delivered = here?.delivered ?? 0;
      figures.opens = m.uniqueOpens;
      figures.clicks = m.uniqueClicks;
    }
    if (step.paths) {
      figures.paths = step.paths.map((p) => p.enrolled);
      figures.reached = figures.paths.reduce((sum, n) => sum + n, 0);
    }
    // Every enrollment starts at the first step.
    if (step.stepKey === '0') figures.reached = report.enrollments.enrolled;
    steps.set(step.stepKey, figures);
  }
  const { completed, converted, exited } = report.enrollments;
  return { steps, ended: { completed, converted, exited } };
}

function lifecycleButtons(base: string, campaign: Campaign): SafeHtml[] {
  // A paused campaign's activate is its resume: one button for it.
  const offered = transitionsFrom(campaign.status).filter(
    (t) => !(t === 'activate' && campaign.status === 'paused'),
  );
  return offered.map(
    (t) =>
      html`<a class="button${t === 'archive' ? ' danger' : ''}" href="${base}/${t}">${TRANSITION_LABELS[t]}</a>`,
  );
}

const TRANSITION_LABELS: Record<Transition, string> = {
  activate: 'Activate',
  pause: 'Pause',
  resume: 'Resume',
  archive: 'Archive',
};

async function campaignPage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = toCampaign(await requireCampaign(app.db, workspaceId, String(req.params.campaignId)));
  const base = campaignPath(res, campaign.id);
  const [report, now, names] = await Promise.all([
    campaignReport(app.db, workspaceId, campaign.id) as Promise<Report>,
    stepFiguresOf(app.db, workspaceId, campaign.id),
    segmentNamesOf(app.db, workspaceId, segmentsOfCampaign(campaign)),
  ]);
  const e = report.enrollments;
  const figures = { ...flowFigures(report, now), segmentNames: names };
  const edit =
    campaign.status === 'archived'
      ? []
      : [
          html`<a class="button" href="${base}/form">Edit</a>`,
          html`<a class="button" href="${base}/edit">Edit as JSON</a>`,
        ];
  const progress =
    campaign.trigger.type === 'broadcast' && campaign.activatedAt
      ? [html`<a class="button" href="${base}/progress">Sending progress</a>`]
      : campaign.trigger.type === 'broadcast' && campaign.status === 'draft'
        ? [html`<a class="button" href="${base}/audience">Audience</a>`]
        : [];
  sendPage(res, {
    title: campaign.name,
    section: 'campaigns',
    crumbs: [{ label: 'Campaigns', href: `${workspacePath(res)}/campaigns` }],
    actions: html`${progress}<a class="button" href="${base}/report">Report</a>${edit}${lifecycleButtons(base, campaign)}`,
    body: html`${keyValueList([
      ['Status', badge(campaign.status, STATUS_KINDS[campaign.status])],
      ['Trigger', triggerWords(campaign.trigger, names)],
      ['Re-entry', campaign.reentry],
      ['Goal', campaign.goal ? `“${campaign.goal.eventType}” event (converts and exits)` : null],
      ['Activated', campaign.activatedAt ? time(campaign.activatedAt) : null],
      [
        'Enrollments',
        `${formatNumber(e.enrolled)} enrolled · ${formatNumber(e.active)} in the flow · ${formatNumber(e.completed)} completed · ${formatNumber(e.converted)} converted · ${formatNumber(e.exited)} exited`,
      ],
    ])}
<h2>Flow</h2>
<p class="muted">Numbers as of now: reached the step, waiting there, and for send steps the messages sent, delivered, and opened and clicked by a person.</p>
${flowDiagram(campaign.name, campaign.steps, figures)}
<h2>Steps</h2>
${stepTable(campaign, figures, base)}`,
  });
}

/** The diagram's numbers as a table: what a screen reader reads, and what can be copied. */
function stepTable(campaign: Campaign, figures: FlowFigures, base: string): SafeHtml {
  const shown = (value: number | undefined) => (value === undefined ? '' : formatNumber(value));
  return table({
    caption: 'Each step with its numbers now',
    columns: [
      { label: 'Step' },
      { label: 'What' },
      { label: 'Reached', numeric: true },
      { label: 'Waiting', numeric: true },
      { label: 'Sent', numeric: true },
      { label: 'Delivered', numeric: true },
      { label: 'Human opens', numeric: true },
      { label: 'Human clicks', numeric: true },
      { label: 'Template' },
    ],
    rows: allSteps(campaign.steps).map(({ key, step }) => {
      const heading = stepHeading(key, step, figures.segmentNames);
      const f = figures.steps.get(key) ?? {};
      return [
        key,
        `${step.type}${heading.detail ? `: ${heading.detail}` : ''}`,
        shown(f.reached),
        shown(f.waiting),
        shown(f.sent),
        shown(f.delivered),
        shown(f.opens),
        shown(f.clicks),
        step.type === 'send'
          ? html`<a href="${base}/steps/${encodeURIComponent(key)}/template">${campaign.status === 'draft' ? 'Edit' : 'Preview'}<span class="visually-hidden"> the template of step ${key}</span></a>`
          : '',
      ];
    }),
  });
}

// ---- Creating and editing: the definition as JSON ----

/** The fields of a definition as the API takes them, in the order a person reads them. */
function definitionOf(campaign: Campaign) {
  return {
    name: campaign.name,
    trigger: campaign.trigger,
    steps: campaign.steps,
    reentry: campaign.reentry,
    ...(campaign.goal ? { goal: campaign.goal } : {}),
    tracking: campaign.tracking,
  };
}

const STARTER = {
  name: '',
  trigger: { type: 'event', eventType: 'signup' },
  steps: [{ type: 'wait', duration: 'P1D' }],
  reentry: 'never',
};

type Editor = { campaign: Campaign | null; json: string; errors: string[]; status?: number };

function sendEditor(res: Response, editor: Editor) {
  const list = `${workspacePath(res)}/campaigns`;
  const { campaign } = editor;
  const action = campaign ? `${list}/${encodeURIComponent(campaign.id)}/edit` : `${list}/new`;
  const crumbs = [{ label: 'Campaigns', href: list }];
  if (campaign) crumbs.push({ label: campaign.name, href: `${list}/${encodeURIComponent(campaign.id)}` });
  const errors = editor.errors.length
    ? html`<div class="flash flash-error" role="alert"><p>The campaign was not saved:</p><ul>${editor.errors.map(
        (e) => html`<li>${e}</li>`,
      )}</ul></div>`
    : '';
  const running =
    campaign && campaign.status !== 'draft'
      ? html`<p>This campaign is ${campaign.status}: only its name and tracking can change (its enrollments follow the current trigger and steps).</p>`
      : '';
  sendPage(res, {
    title: campaign ? `Edit ${campaign.name}` : 'New campaign',
    section: 'campaigns',
    crumbs,
    status: editor.status,
    body: html`${errors}${running}
<p class="muted">The definition as JSON, for experts. <a href="${campaign ? action.replace(/\/edit$/, '/form') : `${list}/new/form`}">Edit it as a form</a> instead.</p>
<form method="post" action="${action}">${csrfField(res)}
<label for="definition">Definition (JSON, as the API’s <code>POST …/campaigns</code> takes it: name, trigger, steps, reentry, goal, tracking)</label>
<textarea id="definition" name="definition" rows="24" spellcheck="false" autocomplete="off">${editor.json}</textarea>
<p><button type="submit">${campaign ? 'Save campaign' : 'Create draft'}</button></p></form>`,
  });
}

/** The text parsed as JSON and checked by the API's schema: the definition, or what is wrong. */
function readDefinition(
  text: string,
): { definition: z.output<typeof CreateCampaignBody> } | { errors: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { errors: [`The definition is not valid JSON: ${(error as Error).message}`] };
  }
  const parsed = CreateCampaignBody.safeParse(value);
  if (parsed.success) return { definition: parsed.data };
  return {
    errors: zodIssuesToFieldErrors(parsed.error.issues, 'body').map(
      (e) => `${e.path.replace(/^body\.?/, '') || '(the definition)'}: ${e.message}`,
    ),
  };
}

/** A service's refusal as lines for the editor (templates that fail, segments that are not here). */
function refusalLines(error: unknown): string[] | null {
  if (error instanceof ValidationError)
    return error.errors.map((e) => `${e.path.replace(/^body\./, '')}: ${e.message}`);
  if (error instanceof NotFoundError || error instanceof ConflictError) return [error.message];
  if (error instanceof AppError && error.status < 500) return [error.message];
  return null;
}

/** The fields of `next` that differ from the campaign: a running campaign takes only some. */
function changedFields(campaign: Campaign, next: z.output<typeof CreateCampaignBody>) {
  const current = definitionOf(campaign) as Record<string, unknown>;
  const wanted: Record<string, unknown> = { ...next, goal: next.goal ?? null };
  if (!('goal' in current)) current.goal = null;
  return Object.fromEntries(
    Object.entries(wanted).filter(
      ([field, value]) => JSON.stringify(value) !== JSON.stringify(current[field]),
    ),
  );
}

async function saveEditor(app: AppContext, req: Request, res: Response, campaignId: string | null) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = campaignId ? toCampaign(await requireCampaign(app.db, workspaceId, campaignId)) : null;
  const json = formText(req, 'definition');
  const read = readDefinition(json);
  if ('errors' in read) return sendEditor(res, { campaign, json, errors: read.errors, status: 400 });
  try {
    if (!campaign) {
      const created = await createCampaign(app.db, workspaceId, read.definition);
      const path = campaignPath(res, created.id);
      return redirectWithFlash(req, res, path, 'Draft campaign created. Activate it when it is ready.');
    }
    const path = campaignPath(res, campaign.id);
    const patch = changedFields(campaign, read.definition);
    if (Object.keys(patch).length === 0) return redirectWithFlash(req, res, path, 'Nothing changed.');
    await app.db.transaction((tx) => updateCampaign(tx, workspaceId, campaign.id, patch));
    return redirectWithFlash(req, res, path, 'Campaign saved.');
  } catch (error) {
    const lines = refusalLines(error);
    if (!lines) throw error;
    return sendEditor(res, {
      campaign,
      json,
      errors: lines,
      status: error instanceof AppError ? error.status : 400,
    });
  }
}

async function editPage(app: AppContext, req: Request, res: Response) {
  const campaign = toCampaign(
    await requireCampaign(app.db, pageWorkspace(res).id, String(req.params.campaignId)),
  );
  if (campaign.status === 'archived')
    throw new ConflictError('An archived campaign cannot be edited.', 'campaign-archived');
  sendEditor(res, { campaign, json: JSON.stringify(definitionOf(campaign), null, 2), errors: [] });
}

// ---- Lifecycle: a page that says what will happen, then the form ----

type Outlook = { report: Report; names: Map<string, string>; audience: number | null; path: string };

function consequences(transition: Transition, campaign: Campaign, outlook: Outlook): SafeHtml {
  const { report, names, audience, path } = outlook;
  const inFlow = formatNumber(report.enrollments.active);
  switch (transition) {
    case 'activate':
      if (campaign.status === 'paused') return consequences('resume', campaign, outlook);
      return campaign.trigger.type === 'broadcast'
        ? html`<p>The ${formatNumber(audience ?? 0)} members of the segment “${names.get(campaign.trigger.segmentId) ?? campaign.trigger.segmentId}” (as of now) are enrolled ${campaign.trigger.sendAt ? html`at ${time(campaign.trigger.sendAt)}` : 'now'}, and each goes through the steps (a send step’s message to someone unsubscribed or without an address on its channel is suppressed, not sent). After activation only the name and tracking can change.</p>
<p><a href="${path}/audience">See exactly how many it will reach, and why the others will not</a> (counted now: it can take a few seconds for a large segment).</p>`
        : html`<p>The trigger starts enrolling contacts from now on (${triggerWords(campaign.trigger, names)}); contacts who matched before are not enrolled. After activation only the name and tracking can change.</p>`;
    case 'pause':
      return html`<p>The trigger stops enrolling. The ${inFlow} people in the flow stay where they are: each is held before its next step, and nothing more is sent to them until the campaign is resumed. Messages already queued still go.</p>`;
    case 'resume':
      return html`<p>The ${inFlow} people held in the flow continue from the step they were held at (waits that ended meanwhile go on at once), and the trigger enrolls again.</p>`;
    case 'archive':
      return html`<p>The ${inFlow} people still in the flow exit at once (exit reason <code>archived</code>): no further step runs and nothing more is sent to them; a message already queued still goes. The trigger stops for good. An archived campaign cannot be activated or edited again; its report stays.</p>`;
  }
}

async function confirmPage(app: AppContext, req: Request, res: Response, transition: Transition) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = toCampaign(await requireCampaign(app.db, workspaceId, String(req.params.campaignId)));
  const path = campaignPath(res, campaign.id);
  if (!transitionsFrom(campaign.status).includes(transition)) {
    throw new ConflictError(
      `This campaign is ${campaign.status}: it cannot be ${transition === 'activate' ? 'activated' : `${transition}d`}.`,
      'invalid-transition',
    );
  }
  const trigger = campaign.trigger;
  const [report, names, audience] = await Promise.all([
    campaignReport(app.db, workspaceId, campaign.id) as Promise<Report>,
    segmentNamesOf(app.db, workspaceId, segmentOf(trigger)),
    trigger.type === 'broadcast' && campaign.status === 'draft'
      ? segmentVersion(app.db, workspaceId, trigger.segmentId).then((segment) => segment?.members ?? 0)
      : null,
  ]);
  sendPage(res, {
    title: `${TRANSITION_LABELS[transition]} ${campaign.name}?`,
    section: 'campaigns',
    crumbs: [
      { label: 'Campaigns', href: `${workspacePath(res)}/campaigns` },
      { label: campaign.name, href: path },
    ],
    body: html`${consequences(transition, campaign, { report, names, audience, path })}
<p>${postForm(res, {
      action: `${path}/${transition}`,
      label: TRANSITION_LABELS[transition],
      danger: transition === 'archive',
      back: path,
    })} <a href="${path}">Cancel</a></p>`,
  });
}

const PAST: Record<Transition, string> = {
  activate: 'activated',
  pause: 'paused',
  resume: 'resumed',
  archive: 'archived',
};

async function transitionPost(app: AppContext, req: Request, res: Response, transition: Transition) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = await app.db.transaction((tx) =>
    transitionCampaign(app, tx, workspaceId, String(req.params.campaignId), transition),
  );
  const path = campaignPath(res, campaign.id);
  // An activated broadcast starts sending: its progress is what one wants to see next.
  const next = transition === 'activate' && campaign.trigger.type === 'broadcast' ? `${path}/progress` : path;
  redirectWithFlash(req, res, next, `Campaign ${PAST[transition]}.`);
}

function install(app: AppContext, router: Router) {
  const form = consoleForm();
  installTemplateEditor(app, router);
  installBuilder(app, router);
  installAudiencePage(app, router);
  router.get('/campaigns', (_req, res) => listPage(app, res));
  router.get('/campaigns/new', (_req, res) =>
    sendEditor(res, { campaign: null, json: JSON.stringify(STARTER, null, 2), errors: [] }),
  );
  router.post('/campaigns/new', form, (req, res) => saveEditor(app, req, res, null));
  router.get('/campaigns/:campaignId', (req, res) => campaignPage(app, req, res));
  router.get('/campaigns/:campaignId/edit', (req, res) => editPage(app, req, res));
  router.post('/campaigns/:campaignId/edit', form, (req, res) =>
    saveEditor(app, req, res, String(req.params.campaignId)),
  );
  for (const transition of ['activate', 'pause', 'resume', 'archive'] as const) {
    router.get(`/campaigns/:campaignId/${transition}`, (req, res) => confirmPage(app, req, res, transition));
    router.post(`/campaigns/:campaignId/${transition}`, form, (req, res) =>
      transitionPost(app, req, res, transition),
    );
  }
}

export function campaignConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: 'campaigns', label: 'Campaigns', key: 'a', order: 40 }],
    install: (router) => install(app, router),
  };
}
