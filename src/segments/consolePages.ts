// The segments section of the console: the list (member counts, 30-day entries and exits as
// sparklines), the builder (new and edit, with the live count), and a segment's page (its rule in
// words, refresh state and members, paged by keyset). Every page calls the services the API calls,
// with the same roles: the API lets any member write segments, so the console does too.
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import {
  badge,
  type ConsolePages,
  confirmForm,
  consoleForm,
  emptyState,
  formatNumber,
  formText,
  html,
  keyValueList,
  pageOf,
  pager,
  pageWorkspace,
  readCursor,
  redirectWithFlash,
  type SafeHtml,
  sendPage,
  sparkline,
  table,
  time,
  withQuery,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { ValidationError } from '../core/errors.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import {
  applyAction,
  blankNode,
  type FormNode,
  formToRootRule,
  readForm,
  ruleToForm,
} from './builderForm.ts';
import { type PreviewState, renderBuilder, renderPreview } from './consoleBuilder.ts';
import { contactSegmentsPage, whyPage } from './consoleExplain.ts';
import { describeRule } from './describe.ts';
import { previewSegment } from './preview.ts';
import { listMembersAfter, type SegmentRow } from './queries.ts';
import { SegmentRules } from './ruleSchemas.ts';
import { CreateSegmentBody } from './schemas.ts';
import { createSegment, deleteSegment, getSegment, listSegmentPage, updateSegment } from './service.ts';
import { type DayActivity, segmentActivity, statisticsOf } from './stats.ts';

const MEMBERS_PAGE = 50;
/** A workspace holds at most SEGMENTS_PER_WORKSPACE segments (100 by default): one page shows them. */
const LIST_LIMIT = 200;

function activityCell(days: DayActivity[]): SafeHtml {
  const entered = days.reduce((sum, day) => sum + day.entered, 0);
  const exited = days.reduce((sum, day) => sum + day.exited, 0);
  return html`<span class="activity">${sparkline(
    days.map((day) => day.entered),
    { label: `Entries per day over 30 days: ${entered} in all`, width: 90, height: 20 },
  )} +${formatNumber(entered)} ${sparkline(
    days.map((day) => day.exited),
    { label: `Exits per day over 30 days: ${exited} in all`, width: 90, height: 20 },
  )} −${formatNumber(exited)}</span>`;
}

const statusBadge = (status: 'computing' | 'ready') =>
  status === 'ready' ? badge('ready', 'success') : badge('computing', 'info');

async function listPage(app: AppContext, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const base = workspacePath(res);
  const page = await listSegmentPage(app.db, workspaceId, { page: 1, limit: LIST_LIMIT });
  const activity = await segmentActivity(
    app.db,
    workspaceId,
    page.data.map((segment) => segment.id),
  );
  const body = page.data.length
    ? table({
        caption: 'Segments',
        columns: [
          { label: 'Segment' },
          { label: 'Members', numeric: true },
          { label: 'Entries and exits, 30 days' },
          { label: 'State' },
        ],
        rows: page.data.map((segment) => [
          html`<a href="${base}/segments/${encodeURIComponent(segment.id)}">${segment.name}</a><br><span class="muted">${describeRule(segment.rules)}</span>`,
          formatNumber(segment.count),
          activityCell(activity.get(segment.id) ?? []),
          statusBadge(segment.status),
        ]),
      })
    : emptyState(
        'No segments yet',
        html`A segment is a set of contacts described by rules. <a href="${base}/segments/new">Build the first one</a>.`,
      );
  sendPage(res, {
    title: 'Segments',
    section: 'segments',
    actions: html`<a class="button" href="${base}/segments/new">New segment</a>`,
    body,
  });
}

/** The rule of a form tree checked by the API's own schema: the rule, or the messages to show. */
function checkedRule(tree: FormNode): { rule: z.infer<typeof SegmentRules> } | { messages: string[] } {
  const parsed = SegmentRules.safeParse(formToRootRule(tree));
  if (parsed.success) return { rule: parsed.data };
  return {
    messages: zodIssuesToFieldErrors(parsed.error.issues, 'rules').map((e) => `${e.path}: ${e.message}`),
  };
}

async function previewOf(app: AppContext, workspaceId: string, tree: FormNode): Promise<PreviewState> {
  if ('children' in tree && tree.children.length === 0) return { kind: 'none' };
  const checked = checkedRule(tree);
  if ('messages' in checked) return { kind: 'invalid', messages: checked.messages };
  return { kind: 'result', ...(await previewSegment(app.db, workspaceId, checked.rule)) };
}

type BuilderTarget = { segmentId: string | null; name: string; description: string; tree: FormNode };

/** How many of a saved segment's members its edit page shows before its rules are changed. */
const STORED_SAMPLE = 5;

/**
 * A saved segment's edit page opens on its members as they are kept (their count and the latest
 * to enter), not on a live evaluation of the rules it already has: that costs seconds at a million
 * contacts and says what the segment page already knows. The live preview starts with the first
 * change of the rules.
 */
async function storedPreview(
  app: AppContext,
  workspaceId: string,
  segment: SegmentRow,
): Promise<PreviewState> {
  const members = await listMembersAfter(app.db, workspaceId, segment.id, null, STORED_SAMPLE);
  return {
    kind: 'stored',
    count: segment.count,
    computing: segment.status === 'computing',
    computedAt: segment.computed_at,
    sample: members.map((m) => ({
      id: m.id,
      email: m.email,
      firstName: m.first_name,
      lastName: m.last_name,
    })),
  };
}

async function sendBuilder(
  app: AppContext,
  res: Response,
  target: BuilderTarget,
  extra: { errors?: string[]; json?: string; status?: number; preview?: PreviewState } = {},
) {
  const base = workspacePath(res);
  const action = target.segmentId
    ? `${base}/segments/${encodeURIComponent(target.segmentId)}/edit`
    : `${base}/segments/new`;
  const preview = extra.preview ?? (await previewOf(app, pageWorkspace(res).id, target.tree));
  const crumbs = [{ label: 'Segments', href: `${base}/segments` }];
  if (target.segmentId)
    crumbs.push({ label: target.name, href: `${base}/segments/${encodeURIComponent(target.segmentId)}` });
  sendPage(res, {
    title: target.segmentId ? `Edit ${target.name}` : 'New segment',
    section: 'segments',
    crumbs,
    status: extra.status,
    body: renderBuilder({
      res,
      action,
      base,
      name: target.name,
      description: target.description,
      tree: target.tree,
      errors: extra.errors ?? [],
      preview,
      json: extra.json,
      submitLabel: target.segmentId ? 'Save segment' : 'Create segment',
    }),
  });
}

/** The JSON view's "Use this JSON": the form rebuilt from it, or the text kept with what is wrong. */
function fromJson(text: string): { tree: FormNode } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'The JSON view does not hold valid JSON.' };
  }
  const parsed = SegmentRules.safeParse(value);
  if (!parsed.success) {
    const messages = zodIssuesToFieldErrors(parsed.error.issues, 'rules').map(
      (e) => `${e.path}: ${e.message}`,
    );
    return { error: `The JSON is not a valid rule: ${messages.join(' · ')}` };
  }
  return { tree: ruleToForm(parsed.data) };
}

async function save(app: AppContext, req: Request, res: Response, target: BuilderTarget) {
  const workspaceId = pageWorkspace(res).id;
  const body = CreateSegmentBody.safeParse({
    name: target.name,
    description: target.description.trim() === '' ? null : target.description,
    rules: formToRootRule(target.tree),
  });
  if (!body.success) {
    const errors = zodIssuesToFieldErrors(body.error.issues, 'segment').map(
      (e) => `${e.path.replace(/^segment\./, '')}: ${e.message}`,
    );
    return sendBuilder(app, res, target, { errors, status: 400 });
  }
  const saved = target.segmentId
    ? await updateSegment(app, workspaceId, target.segmentId, body.data)
    : await createSegment(app, workspaceId, body.data);
  const message = target.segmentId
    ? `Segment saved; its members are being computed again.`
    : `Segment created; its members are being computed.`;
  redirectWithFlash(req, res, `${workspacePath(res)}/segments/${encodeURIComponent(saved.id)}`, message);
}

/** Every POST of the builder: a button that changes the form, the JSON view, a preview, or save. */
async function builderPost(app: AppContext, req: Request, res: Response, segmentId: string | null) {
  if (segmentId) await getSegment(app.db, pageWorkspace(res).id, segmentId); // 404 first
  const action = formText(req, 'action');
  const target: BuilderTarget = {
    segmentId,
    name: formText(req, 'name'),
    description: formText(req, 'description'),
    tree: readForm(req.body ?? {}),
  };
  if (action === 'save') return save(app, req, res, target);
  if (action === 'json') {
    const json = formText(req, 'json');
    const result = fromJson(json);
    if ('error' in result)
      return sendBuilder(app, res, target, { errors: [result.error], json, status: 400 });
    return sendBuilder(app, res, { ...target, tree: result.tree });
  }
  return sendBuilder(app, res, { ...target, tree: applyAction(target.tree, action) });
}

/** htmx's live count: the form as it stands, answered with the preview section alone. */
async function livePreview(app: AppContext, req: Request, res: Response) {
  const state = await previewOf(app, pageWorkspace(res).id, readForm(req.body ?? {}));
  res.type('html').send(renderPreview(state, workspacePath(res)).toString());
}

function refreshWords(stats: Awaited<ReturnType<typeof statisticsOf>>): SafeHtml {
  const { refresh } = stats;
  if (refresh.status === 'computing')
    return html`${statusBadge('computing')} Members are being computed after a change of the rules; the count grows as pages finish.`;
  const computed = refresh.computedAt ? html`computed ${time(refresh.computedAt)}` : 'not computed yet';
  if (!refresh.timeWindow)
    return html`${statusBadge('ready')} Kept current as contacts change (${computed}).`;
  const through = refresh.refreshedThrough
    ? html`; time windows applied up to ${time(refresh.refreshedThrough)}`
    : '';
  return html`${statusBadge('ready')} Kept current as contacts change and refreshed every minute as time windows move (${computed}${through}${
    refresh.passInProgress ? '; a whole pass is under way' : ''
  }).`;
}

async function segmentPage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const base = workspacePath(res);
  const segment = await getSegment(app.db, workspaceId, String(req.params.segmentId));
  const after = readCursor(req.query.after, z.tuple([z.string(), z.string()]));
  const [stats, rows] = await Promise.all([
    statisticsOf(app.db, workspaceId, segment),
    listMembersAfter(app.db, workspaceId, segment.id, after, MEMBERS_PAGE + 1),
  ]);
  const { shown, next } = pageOf(rows, MEMBERS_PAGE, (row) => [row.position, row.id]);
  const path = `${base}/segments/${encodeURIComponent(segment.id)}`;
  const members = shown.length
    ? table({
        caption: 'Members, latest entered first',
        columns: [
          { label: 'Contact' },
          { label: 'Name' },
          { label: 'Score', numeric: true },
          { label: 'Entered' },
        ],
        rows: shown.map((m) => [
          html`<a href="${base}/contacts/${encodeURIComponent(m.id)}">${m.email ?? m.id}</a>`,
          [m.first_name, m.last_name].filter(Boolean).join(' '),
          m.lead_score,
          time(m.entered_at),
        ]),
      })
    : emptyState('No members', after ? 'There are no more members.' : 'No contact matches the rule now.');
  sendPage(res, {
    title: segment.name,
    section: 'segments',
    crumbs: [{ label: 'Segments', href: `${base}/segments` }],
    actions: html`<a class="button" href="${path}/edit">Edit</a>`,
    body: html`${segment.description ? html`<p>${segment.description}</p>` : ''}
${keyValueList([
  ['Rule', describeRule(segment.rules)],
  ['Members', formatNumber(stats.count)],
  ['Last 30 days', activityCell(stats.days)],
  ['State', refreshWords(stats)],
])}
<h2>Members</h2>
${members}
${pager({ first: after ? path : null, next: next && withQuery(req.originalUrl, { after: next }) })}
<h2>Delete</h2>
${confirmForm(res, {
  action: `${path}/delete`,
  label: 'Delete segment',
  back: path,
  confirm: { name: 'confirm', expected: segment.name, prompt: 'Type the segment’s name to delete it' },
})}`,
  });
}

async function deletePost(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const segment = await getSegment(app.db, workspaceId, String(req.params.segmentId));
  if (formText(req, 'confirm') !== segment.name) {
    throw new ValidationError([{ path: 'confirm', message: 'must be the segment’s name, typed exactly' }]);
  }
  await deleteSegment(app.db, workspaceId, segment.id);
  redirectWithFlash(req, res, `${workspacePath(res)}/segments`, `Segment “${segment.name}” deleted.`);
}

function install(app: AppContext, router: Router) {
  // Express 5 hands a rejected handler's error to the console's error pages (consoleErrors).
  router.get('/segments', (_req, res) => listPage(app, res));
  router.get('/segments/new', (_req, res) =>
    sendBuilder(app, res, {
      segmentId: null,
      name: '',
      description: '',
      tree: { type: 'all', children: [blankNode('attribute')] },
    }),
  );
  router.post('/segments/new', consoleForm(), (req, res) => builderPost(app, req, res, null));
  router.post('/segments/preview', consoleForm(), (req, res) => livePreview(app, req, res));
  router.get('/segments/:segmentId', (req, res) => segmentPage(app, req, res));
  router.get('/segments/:segmentId/edit', async (req, res) => {
    const workspaceId = pageWorkspace(res).id;
    const segment = await getSegment(app.db, workspaceId, String(req.params.segmentId));
    const target = {
      segmentId: segment.id,
      name: segment.name,
      description: segment.description ?? '',
      tree: ruleToForm(segment.rules),
    };
    await sendBuilder(app, res, target, { preview: await storedPreview(app, workspaceId, segment) });
  });
  router.post('/segments/:segmentId/edit', consoleForm(), (req, res) =>
    builderPost(app, req, res, String(req.params.segmentId)),
  );
  router.post('/segments/:segmentId/delete', consoleForm(), (req, res) => deletePost(app, req, res));
  router.get('/contacts/:contactId/segments', (req, res) => contactSegmentsPage(app, req, res));
  router.get('/contacts/:contactId/segments/:segmentId/why', (req, res) => whyPage(app, req, res));
}

export function segmentConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: 'segments', label: 'Segments', key: 's', order: 20 }],
    install: (router) => install(app, router),
  };
}
