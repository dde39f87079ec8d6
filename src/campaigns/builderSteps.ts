// The campaign builder's sections: the trigger, the steps (nested lists of fieldsets, each with its
// move and remove buttons, and "add a step here" buttons between them), the settings (re-entry,
// goal, tracking) and the workspace's pace. Every button is a submit button: the page works with
// JavaScript off, and nothing is saved until "Save".
import { html, type SafeHtml } from '../console/index.ts';
import { WINDOW_UNITS } from '../segments/index.ts';
import {
  type Draft,
  type FormStep,
  fitsAt,
  type PacingDraft,
  REENTRIES,
  STEP_TYPES,
  type StepType,
  stepKeyOf,
} from './builderForm.ts';
import {
  actionButton,
  checkbox,
  errorsAt,
  type Place,
  radioGroup,
  selectInput,
  textInput,
} from './builderInputs.ts';
import { sendStepInputs } from './builderSend.ts';

export type Segments = readonly { id: string; name: string }[];
type Context = Place & { segments: Segments };

const STEP_LABELS: Record<StepType, string> = {
  send: 'Send',
  wait: 'Wait',
  branch: 'Branch',
  split: 'Split',
  exit: 'Exit',
};

const UNIT_OPTIONS = WINDOW_UNITS.map((unit) => [unit, unit] as const);

/** The segments to choose from; an id the workspace no longer has stays, named as unknown. */
function segmentOptions(segments: Segments, current: string) {
  const options = [['', '(choose a segment)'] as const, ...segments.map((s) => [s.id, s.name] as const)];
  if (current && !segments.some((s) => s.id === current))
    options.push([current, `unknown segment ${current}`] as const);
  return options;
}

function addButtons(list: string, index: number, where: string): SafeHtml {
  const types = STEP_TYPES.filter((type) => fitsAt(type, list));
  return html`<div class="builder-add" role="group" aria-label="Add a step ${where}"><span class="muted">Add ${where}:</span> ${types.map(
    (type) => html`${actionButton(`add:${list}@${index}:${type}`, STEP_LABELS[type].toLowerCase())} `,
  )}</div>`;
}

/** A list of steps with "add here" buttons before each step and at the end. */
export function stepList(ctx: Context, steps: FormStep[], list: string): SafeHtml {
  const key = stepKeyOf(list);
  const where = (i: number) =>
    i === 0 ? `at the start${key ? ` of ${key}` : ''}` : `after step ${stepKeyOf(`${list}[${i - 1}]`)}`;
  return html`<ol class="builder-steps">${steps.map(
    (step, i) =>
      html`<li>${addButtons(list, i, where(i))}${stepFieldset(ctx, step, `${list}[${i}]`, i, steps.length)}</li>`,
  )}<li>${addButtons(list, steps.length, steps.length === 0 ? `a first step${key ? ` to ${key}` : ''}` : where(steps.length))}</li></ol>`;
}

/** The input that takes the focus when the step was just added or moved. */
function firstInput(step: FormStep, at: string): string | null {
  const first = {
    send: 'channel',
    wait: 'duration',
    branch: 'if.event',
    split: 'paths[0].weight',
    exit: null,
  }[step.type];
  return first ? `${at}.${first}` : null;
}

function stepFieldset(context: Context, step: FormStep, at: string, index: number, count: number): SafeHtml {
  const key = stepKeyOf(at);
  const ctx = context.focus === at ? { ...context, focus: firstInput(step, at) } : context;
  return html`<fieldset class="builder-step builder-${step.type}" id="${at}">
<legend>Step ${key} · ${STEP_LABELS[step.type]}</legend>
<input type="hidden" name="${at}.type" value="${step.type}">
${errorsAt(ctx, at)}${stepBody(ctx, step, at)}
<div class="builder-tools">${index > 0 ? actionButton(`up:${at}`, `Move step ${key} up`) : ''} ${
    index < count - 1 ? actionButton(`down:${at}`, `Move step ${key} down`) : ''
  } ${actionButton(`remove:${at}`, `Remove step ${key}`, 'danger')}</div>
</fieldset>`;
}

function stepBody(ctx: Context, step: FormStep, at: string): SafeHtml {
  switch (step.type) {
    case 'send':
      return sendStepInputs(ctx, at, step);
    case 'wait':
      return html`${radioGroup({
        name: `${at}.wait`,
        legend: 'Wait',
        value: step.mode,
        options: [
          ['duration', 'for a time'],
          ['until', 'until a time of day'],
        ],
      })}<div class="builder-row when-duration">${textInput(ctx, { name: `${at}.duration`, label: 'For', value: step.amount, type: 'number', size: 6 })}
${selectInput(ctx, { name: `${at}.durationUnit`, label: 'Unit', value: step.unit, options: UNIT_OPTIONS })}</div>
<div class="builder-row when-until">${textInput(ctx, { name: `${at}.until.time`, label: 'Until', value: step.time, type: 'time' })}
${textInput(ctx, {
  name: `${at}.until.timezone`,
  label: 'Time zone (optional)',
  value: step.timezone,
  hint: "the contact's own, else the workspace's",
  size: 20,
})}</div>`;
    case 'branch':
      return branchBody(ctx, step, at);
    case 'split':
      return splitBody(ctx, step, at);
    default:
      return html`<p class="muted">The contact leaves the campaign here.</p>`;
  }
}

function branchBody(ctx: Context, step: Extract<FormStep, { type: 'branch' }>, at: string): SafeHtml {
  return html`${radioGroup({
    name: `${at}.if.kind`,
    legend: 'If the contact',
    value: step.kind,
    options: [
      ['event', 'did an event since enrolling'],
      ['segment', 'is in a segment now'],
      ['rule', 'matches a segment rule (JSON)'],
    ],
  })}
<div class="builder-row when-event">${textInput(ctx, { name: `${at}.if.event`, label: 'Event type', value: step.event, size: 20 })}
${textInput(ctx, { name: `${at}.if.where`, label: 'Metadata conditions (JSON, optional)', value: step.where, rows: 2 })}</div>
<div class="when-segment">${selectInput(ctx, { name: `${at}.if.segment`, label: 'Segment', value: step.segment, options: segmentOptions(ctx.segments, step.segment) })}</div>
<div class="when-rule">${textInput(ctx, { name: `${at}.if`, label: 'Segment rule (JSON)', value: step.rule, rows: 3 })}</div>
<div class="builder-arms"><section aria-label="Step ${stepKeyOf(at)}: if yes"><h4>If yes</h4>${stepList(ctx, step.yes, `${at}.then`)}</section>
<section aria-label="Step ${stepKeyOf(at)}: if no"><h4>If no</h4>${stepList(ctx, step.no, `${at}.else`)}</section></div>`;
}

function splitBody(ctx: Context, step: Extract<FormStep, { type: 'split' }>, at: string): SafeHtml {
  const total = step.paths.reduce((sum, path) => sum + (Number(path.weight) || 0), 0);
  return html`<p class="muted">Each contact draws one path, with the chance its weight gives it.</p>
<div class="builder-arms">${step.paths.map((path, i) => {
    const share =
      total > 0 && Number(path.weight) > 0 ? ` (${Math.round((Number(path.weight) / total) * 100)} %)` : '';
    return html`<section aria-label="Step ${stepKeyOf(at)}: path ${i + 1}"><h4>Path ${i + 1}${share}</h4>
${textInput(ctx, { name: `${at}.paths[${i}].weight`, label: 'Weight', value: path.weight, type: 'number', size: 5 })}
${step.paths.length > 2 ? actionButton(`removePath:${at}@${i}`, `Remove path ${i + 1}`, 'danger') : ''}
${stepList(ctx, path.steps, `${at}.paths[${i}].steps`)}</section>`;
  })}</div>
${step.paths.length < 10 ? actionButton(`addPath:${at}`, 'Add a path') : ''}`;
}

export function triggerSection(ctx: Context, trigger: Draft['trigger']): SafeHtml {
  return html`<fieldset id="trigger" class="builder-section"><legend>Trigger</legend>${errorsAt(ctx, 'trigger')}
${radioGroup({
  name: 'trigger.type',
  legend: 'Enroll contacts',
  value: trigger.type,
  options: [
    ['event', 'on each event of a type'],
    ['segment_entered', 'when they enter a segment'],
    ['broadcast', 'all members of a segment at once (broadcast)'],
  ],
})}
<div class="builder-row trigger-event">${textInput(ctx, { name: 'trigger.eventType', label: 'Event type', value: trigger.eventType, size: 20 })}
${textInput(ctx, { name: 'trigger.where', label: 'Event filters (metadata conditions, JSON, optional)', value: trigger.where, rows: 2 })}</div>
<div class="builder-row"><div class="trigger-segment">${selectInput(ctx, { name: 'trigger.segmentId', label: 'Segment', value: trigger.segmentId, options: segmentOptions(ctx.segments, trigger.segmentId) })}</div>
<div class="trigger-sendat">${textInput(ctx, { name: 'trigger.sendAt', label: 'Broadcast send time (UTC, optional)', value: trigger.sendAt, type: 'datetime-local', hint: 'empty: on activation' })}</div></div>
</fieldset>`;
}

export function settingsSection(ctx: Context, draft: Draft): SafeHtml {
  return html`<fieldset id="goal" class="builder-section"><legend>Goal, re-entry and tracking</legend>${errorsAt(ctx, 'goal')}
${selectInput(ctx, {
  name: 'reentry',
  label: 'Re-entry',
  value: draft.reentry,
  options: REENTRIES.map((r) => [r, REENTRY_LABELS[r]] as const),
})}
<div class="builder-row">${textInput(ctx, { name: 'goal.eventType', label: 'Goal event type (optional)', value: draft.goal.eventType, hint: 'a contact who does it converts and exits', size: 20 })}
${textInput(ctx, { name: 'goal.where', label: 'Goal filters (JSON, optional)', value: draft.goal.where, rows: 2 })}</div>
<fieldset id="tracking"><legend>Email tracking</legend>${errorsAt(ctx, 'tracking')}${checkbox({ name: 'tracking.opens', label: 'Track opens', checked: draft.tracking.opens })}${checkbox({ name: 'tracking.clicks', label: 'Track clicks', checked: draft.tracking.clicks })}</fieldset>
</fieldset>`;
}

const REENTRY_LABELS: Record<(typeof REENTRIES)[number], string> = {
  never: 'never: once per contact',
  after_completion: 'again after the previous enrollment ends',
  always: 'on every trigger',
};

export function pacingSection(ctx: Context, pacing: PacingDraft): SafeHtml {
  return html`<fieldset id="pacing" class="builder-section"><legend>Frequency cap and quiet hours (every campaign of this workspace)</legend>${errorsAt(ctx, 'pacing')}
<p class="muted">These apply to all campaign messages of the workspace, not only this campaign’s. A send they hold back waits; it is not dropped. Leave empty for no limit.</p>
<div class="builder-row">${textInput(ctx, { name: 'pacing.frequencyCap.count', label: 'At most this many messages per contact', value: pacing.capCount, type: 'number', size: 5 })}
${textInput(ctx, { name: 'pacing.frequencyCap.per', label: 'Per', value: pacing.capPer, type: 'number', size: 5 })}
${selectInput(ctx, { name: 'pacing.frequencyCap.perUnit', label: 'Unit', value: pacing.capUnit, options: UNIT_OPTIONS })}</div>
<div class="builder-row">${textInput(ctx, { name: 'pacing.quietHours.start', label: 'Quiet from', value: pacing.quietStart, type: 'time' })}
${textInput(ctx, { name: 'pacing.quietHours.end', label: 'Quiet until', value: pacing.quietEnd, type: 'time', hint: "in the contact's time zone" })}</div>
</fieldset>`;
}
