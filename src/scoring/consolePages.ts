// /app/{ws}/scoring: the scoring rules (create, edit, enable, disable, delete), the decay setting
// and the score distribution as an inline SVG histogram drawn on the server. The same services and
// schemas as the API; the API lets any member write scoring rules (segments:write), so the page does.
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import {
  badge,
  type ConsolePages,
  consoleForm,
  csrfField,
  emptyState,
  formatNumber,
  formText,
  html,
  pageWorkspace,
  postForm,
  redirectWithFlash,
  type SafeHtml,
  sendPage,
  table,
  time,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { ValidationError } from '../core/errors.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { describeRule, UNIT_ISO, WINDOW_UNITS, type WindowUnit, windowOf } from '../segments/index.ts';
import { type Bucket, LIVE_COUNT_LIMIT, SNAPSHOT_MAX_AGE_MS, scoreDistribution } from './distribution.ts';
import { CreateScoringRuleBody, ScoringSettingsBody, UpdateScoringRuleBody } from './schemas.ts';
import {
  createScoringRule,
  deleteScoringRule,
  getScoringRule,
  getScoringSettings,
  listRulePage,
  putScoringSettings,
  type toScoringRule,
  updateScoringRule,
} from './service.ts';

type ScoringRule = ReturnType<typeof toScoringRule>;

const CHART = { width: 600, height: 140, bottom: 20 };

/** The histogram as bars with a tooltip each, and the same figures as a table for screen readers. */
function histogram(buckets: readonly Bucket[], total: number): SafeHtml {
  if (buckets.length === 0)
    return emptyState('No contacts yet', 'The distribution appears once contacts exist.');
  const most = Math.max(...buckets.map((b) => b.count), 1);
  const slot = CHART.width / buckets.length;
  const plot = CHART.height - CHART.bottom;
  const range = (b: Bucket) => (b.from === b.to ? String(b.from) : `${b.from} to ${b.to}`);
  const bars = buckets.map((b, i) => {
    const height = b.count === 0 ? 0 : Math.max(1, (b.count / most) * plot);
    return html`<rect class="bar" x="${(i * slot + 1).toFixed(1)}" y="${(plot - height).toFixed(1)}" width="${Math.max(1, slot - 2).toFixed(1)}" height="${height.toFixed(1)}"><title>${range(b)}: ${formatNumber(b.count)} contacts</title></rect>`;
  });
  const label = `Lead scores of ${formatNumber(total)} contacts, from ${buckets[0]!.from} to ${buckets.at(-1)!.to}`;
  return html`<figure class="histogram">
<svg role="img" aria-label="${label}" viewBox="0 0 ${CHART.width} ${CHART.height}" width="100%" preserveAspectRatio="none">
<title>${label}</title>${bars}
<text x="0" y="${CHART.height - 4}" class="axis">${buckets[0]!.from}</text>
<text x="${CHART.width}" y="${CHART.height - 4}" text-anchor="end" class="axis">${buckets.at(-1)!.to}</text>
</svg>
<details><summary>The figures</summary>${table({
    caption: 'Contacts per score range',
    columns: [{ label: 'Scores' }, { label: 'Contacts', numeric: true }],
    rows: buckets.map((b) => [range(b), formatNumber(b.count)]),
  })}</details>
</figure>`;
}

function unitSelect(name: string, current: WindowUnit, label: string): SafeHtml {
  return html`<label>${label} <select name="${name}">${WINDOW_UNITS.map(
    (unit) => html`<option value="${unit}"${unit === current ? html` selected` : ''}>${unit}</option>`,
  )}</select></label>`;
}

function conditionsInWords(rule: ScoringRule): string {
  return rule.where?.length
    ? describeRule({ event: rule.eventType, where: rule.where }).replace(/^.*? where /, '')
    : '';
}

/** The rule form, empty for a new rule or filled for an edit. */
function ruleForm(res: Response, action: string, rule: ScoringRule | null): SafeHtml {
  const cooldown = windowOf(rule?.cooldown);
  return html`<form method="post" action="${action}" class="stacked">${csrfField(res)}
<input type="hidden" name="_back" value="${action.endsWith('/rules') ? action.replace(/\/rules$/, '') : action}">
<p><label>Name <input name="name" required maxlength="200" value="${rule?.name ?? ''}"></label></p>
<p><label>Event type <input name="eventType" required maxlength="200" value="${rule?.eventType ?? ''}"></label></p>
<p><label>Points per event <input name="points" type="number" required min="-1000" max="1000" value="${rule ? String(rule.points) : ''}"></label></p>
<p><label>Metadata conditions (JSON, optional) <input name="where" value="${rule?.where?.length ? JSON.stringify(rule.where) : ''}" placeholder='[{"path": "amount", "op": "gt", "value": 100}]'></label></p>
<p><label><input type="checkbox" name="repeatable" value="true"${rule === null || rule.repeatable ? html` checked` : ''}> Scores every matching event (unchecked: once per contact, ever)</label></p>
<p><label>Cooldown <input name="cooldown" type="number" min="1" value="${cooldown.within}"></label> ${unitSelect('cooldownUnit', cooldown.unit, 'Unit')} <span class="muted">optional: after scoring a contact, ignore their matching events this long</span></p>
<p><button type="submit">${rule ? 'Save rule' : 'Create rule'}</button></p>
</form>`;
}

function rulesTable(res: Response, base: string, rules: ScoringRule[]): SafeHtml {
  if (rules.length === 0)
    return emptyState(
      'No scoring rules yet',
      'Create one below: each matching event moves the lead score by its points.',
    );
  return table({
    caption: 'Scoring rules',
    columns: [
      { label: 'Rule' },
      { label: 'Event' },
      { label: 'Points', numeric: true },
      { label: 'Limits' },
      { label: 'State' },
      { label: 'Actions', hidden: true },
    ],
    rows: rules.map((rule) => {
      const path = `${base}/scoring/rules/${encodeURIComponent(rule.id)}`;
      const limits = [
        rule.repeatable ? '' : 'once per contact',
        rule.cooldown ? `cooldown ${rule.cooldown}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      return [
        html`<a href="${path}">${rule.name}</a>`,
        html`${rule.eventType}${conditionsInWords(rule) ? html`<br><span class="muted">where ${conditionsInWords(rule)}</span>` : ''}`,
        rule.points > 0 ? `+${rule.points}` : String(rule.points),
        limits,
        rule.active ? badge('enabled', 'success') : badge('disabled'),
        html`${postForm(res, {
          action: `${path}/active`,
          label: rule.active ? `Disable ${rule.name}` : `Enable ${rule.name}`,
          fields: { active: rule.active ? 'false' : 'true' },
          back: `${base}/scoring`,
        })} ${postForm(res, { action: `${path}/delete`, label: `Delete ${rule.name}`, danger: true, back: `${base}/scoring` })}`,
      ];
    }),
  });
}

function decayForm(
  res: Response,
  base: string,
  settings: Awaited<ReturnType<typeof getScoringSettings>>,
): SafeHtml {
  const every = windowOf(settings.decay?.every ?? 'P7D');
  const state = settings.decay
    ? html`<p>Every ${settings.decay.every}, each score moves ${settings.decay.points} points towards zero${
        settings.lastDecayAt ? html` (periods counted from ${time(settings.lastDecayAt)})` : ''
      }.</p>`
    : html`<p class="muted">Decay is off: scores stay until a rule moves them.</p>`;
  return html`${state}<form method="post" action="${base}/scoring/decay" class="stacked">${csrfField(res)}
<input type="hidden" name="_back" value="${base}/scoring">
<p><label>Points <input name="points" type="number" min="1" max="1000" required value="${String(settings.decay?.points ?? 5)}"></label>
<label>Every <input name="every" type="number" min="1" required value="${every.within}"></label> ${unitSelect('unit', every.unit, 'Unit')}</p>
<p><button type="submit">${settings.decay ? 'Change decay' : 'Turn decay on'}</button></p>
</form>
${settings.decay ? postForm(res, { action: `${base}/scoring/decay`, label: 'Turn decay off', fields: { off: 'true' }, back: `${base}/scoring` }) : ''}`;
}

/** When the figures were counted: a large workspace's are a background count of a few minutes ago. */
function countedWords(distribution: { countedAt: string; total: number }): SafeHtml {
  if (distribution.total <= LIVE_COUNT_LIMIT) return html`Counted ${time(distribution.countedAt)}.`;
  const minutes = SNAPSHOT_MAX_AGE_MS / 60_000;
  return html`Counted ${time(distribution.countedAt)}; a workspace of more than ${formatNumber(LIVE_COUNT_LIMIT)} contacts is counted again every ${minutes} minutes while this page is read.`;
}

async function scoringPage(app: AppContext, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const base = workspacePath(res);
  const [rules, settings, distribution] = await Promise.all([
    listRulePage(app.db, workspaceId, { page: 1, limit: 200 }),
    getScoringSettings(app.db, workspaceId),
    scoreDistribution(app.db, workspaceId),
  ]);
  sendPage(res, {
    title: 'Lead scoring',
    section: 'scoring',
    body: html`<h2>Score distribution</h2>
<p>${formatNumber(distribution.total)} contacts; ${formatNumber(distribution.zero)} with a score of 0. ${countedWords(distribution)}</p>
${histogram(distribution.buckets, distribution.total)}
<h2>Rules</h2>
${rulesTable(res, base, rules.data)}
<h3>New rule</h3>
${ruleForm(res, `${base}/scoring/rules`, null)}
<h2>Decay</h2>
${decayForm(res, base, settings)}`,
  });
}

/** The rule form's fields as the API's body; what does not parse is left for the schema to name. */
function ruleInput(req: Request) {
  const where = formText(req, 'where').trim();
  let parsedWhere: unknown;
  try {
    parsedWhere = where === '' ? undefined : JSON.parse(where);
  } catch {
    parsedWhere = where;
  }
  const cooldown = formText(req, 'cooldown').trim();
  const unit = formText(req, 'cooldownUnit') as WindowUnit;
  const points = formText(req, 'points').trim();
  return {
    name: formText(req, 'name'),
    eventType: formText(req, 'eventType').trim(),
    points: /^-?\d+$/.test(points) ? Number(points) : points,
    where: parsedWhere,
    repeatable: formText(req, 'repeatable') === 'true',
    cooldown: cooldown === '' ? undefined : (UNIT_ISO[unit] ?? UNIT_ISO.days)(cooldown),
  };
}

function parsed<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(zodIssuesToFieldErrors(result.error.issues, 'body'));
  return result.data;
}

async function rulePage(app: AppContext, req: Request, res: Response) {
  const base = workspacePath(res);
  const rule = await getScoringRule(app.db, pageWorkspace(res).id, String(req.params.ruleId));
  const path = `${base}/scoring/rules/${encodeURIComponent(rule.id)}`;
  sendPage(res, {
    title: rule.name,
    section: 'scoring',
    crumbs: [{ label: 'Lead scoring', href: `${base}/scoring` }],
    body: html`<p>Created ${time(rule.createdAt)}, changed ${time(rule.updatedAt)}. ${rule.active ? badge('enabled', 'success') : badge('disabled')}</p>
${ruleForm(res, path, rule)}`,
  });
}

function install(app: AppContext, router: Router) {
  const ws = (res: Response) => pageWorkspace(res).id;
  const back = (res: Response) => `${workspacePath(res)}/scoring`;
  router.get('/scoring', (_req, res) => scoringPage(app, res));
  router.post('/scoring/rules', consoleForm(), async (req, res) => {
    const body = parsed(CreateScoringRuleBody, ruleInput(req));
    const rule = await createScoringRule(app.db, ws(res), { ...body, cooldown: body.cooldown ?? null });
    redirectWithFlash(req, res, back(res), `Scoring rule “${rule.name}” created.`);
  });
  router.get('/scoring/rules/:ruleId', (req, res) => rulePage(app, req, res));
  router.post('/scoring/rules/:ruleId', consoleForm(), async (req, res) => {
    const input = ruleInput(req);
    const body = parsed(UpdateScoringRuleBody, {
      ...input,
      where: input.where ?? null,
      cooldown: input.cooldown ?? null,
    });
    const rule = await updateScoringRule(app.db, ws(res), String(req.params.ruleId), body);
    redirectWithFlash(req, res, back(res), `Scoring rule “${rule.name}” saved.`);
  });
  router.post('/scoring/rules/:ruleId/active', consoleForm(), async (req, res) => {
    const active = formText(req, 'active') === 'true';
    const rule = await updateScoringRule(app.db, ws(res), String(req.params.ruleId), { active });
    redirectWithFlash(req, res, back(res), `Scoring rule “${rule.name}” ${active ? 'enabled' : 'disabled'}.`);
  });
  router.post('/scoring/rules/:ruleId/delete', consoleForm(), async (req, res) => {
    const rule = await getScoringRule(app.db, ws(res), String(req.params.ruleId));
    await deleteScoringRule(app.db, ws(res), rule.id);
    redirectWithFlash(req, res, back(res), `Scoring rule “${rule.name}” deleted; the scores it gave stay.`);
  });
  router.post('/scoring/decay', consoleForm(), async (req, res) => {
    const off = formText(req, 'off') === 'true';
    const unit = formText(req, 'unit') as WindowUnit;
    const every = formText(req, 'every').trim();
    const points = formText(req, 'points').trim();
    const body = parsed(
      ScoringSettingsBody,
      off
        ? { decay: null }
        : {
            decay: {
              points: /^\d+$/.test(points) ? Number(points) : points,
              every: (UNIT_ISO[unit] ?? UNIT_ISO.days)(every),
            },
          },
    );
    await putScoringSettings(app.db, ws(res), body);
    redirectWithFlash(req, res, back(res), off ? 'Decay turned off.' : 'Decay saved.');
  });
}

export function scoringConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: 'scoring', label: 'Scoring', order: 30 }],
    install: (router) => install(app, router),
  };
}
