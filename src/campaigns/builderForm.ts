// The campaign builder's form model: a campaign definition as a draft of plain text fields that an
// HTML form round-trips without JavaScript. Every field is named by its place in the definition
// (`steps[2].then[1].subject`, `steps[3].paths[0].weight`, `trigger.eventType`), so a refusal's
// path (`body.steps.2.then.1.subject`) names the input it is about. The draft is read back from
// the posted fields, changed by the form's buttons (add a step here, remove, up, down, add a path),
// and turned into the definition the API takes; the API's own schema then judges it.
import { CHANNEL_REGISTRY, channelNamed } from '../channels/index.ts';
import { UNIT_ISO, WINDOW_UNITS, type WindowUnit, windowOf } from '../segments/index.ts';
import { MAX_NESTING } from './schemas.ts';

export type WaitMode = 'duration' | 'until';
export type ConditionKind = 'segment' | 'event' | 'rule';
export type TriggerType = 'event' | 'segment_entered' | 'broadcast';

export type FormStep =
  | { type: 'send'; channel: string; fields: Record<string, string> }
  | { type: 'wait'; mode: WaitMode; amount: string; unit: WindowUnit; time: string; timezone: string }
  | {
      type: 'branch';
      kind: ConditionKind;
      segment: string;
      event: string;
      where: string;
      rule: string;
      /** The arms, `then` and `else` in the definition (and in the fields' names). */
      yes: FormStep[];
      no: FormStep[];
    }
  | { type: 'split'; paths: { weight: string; steps: FormStep[] }[] }
  | { type: 'exit' };

export type StepType = FormStep['type'];
export const STEP_TYPES: readonly StepType[] = ['send', 'wait', 'branch', 'split', 'exit'];
export const REENTRIES = ['never', 'after_completion', 'always'] as const;
const TRIGGER_TYPES: readonly TriggerType[] = ['event', 'segment_entered', 'broadcast'];

export type Draft = {
  name: string;
  trigger: { type: TriggerType; eventType: string; where: string; segmentId: string; sendAt: string };
  steps: FormStep[];
  reentry: string;
  goal: { eventType: string; where: string };
  tracking: { opens: boolean; clicks: boolean };
};

/** The workspace's pace, shown and edited beside the campaign (it applies to all of them). */
export type PacingDraft = {
  capCount: string;
  capPer: string;
  capUnit: WindowUnit;
  quietStart: string;
  quietEnd: string;
};

/** A problem found before the schema: a JSON field that does not parse, at the field's name. */
export type FieldProblem = { field: string; message: string };

// ---- blank steps and drafts ----

export function blankStep(type: StepType): FormStep {
  switch (type) {
    case 'send':
      return { type, channel: CHANNEL_REGISTRY[0].name, fields: {} };
    case 'wait':
      return { type, mode: 'duration', amount: '1', unit: 'days', time: '09:00', timezone: '' };
    case 'branch':
      return { type, kind: 'event', segment: '', event: '', where: '', rule: '', yes: [], no: [] };
    case 'split':
      return {
        type,
        paths: [
          { weight: '1', steps: [] },
          { weight: '1', steps: [] },
        ],
      };
    default:
      return { type: 'exit' };
  }
}

export function blankDraft(): Draft {
  return {
    name: '',
    trigger: { type: 'event', eventType: '', where: '', segmentId: '', sendAt: '' },
    steps: [],
    reentry: 'never',
    goal: { eventType: '', where: '' },
    tracking: { opens: true, clicks: true },
  };
}

// ---- definition → draft ----

const jsonText = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));
const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));

/** A UTC instant as a datetime-local value (the form says the time is UTC). */
function localUtc(iso: string | undefined): string {
  if (!iso) return '';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toISOString().slice(0, 19);
}

type Json = Record<string, unknown>;

function stepToForm(step: Json): FormStep {
  switch (step.type) {
    case 'send': {
      const { type: _type, channel, ...rest } = step;
      return {
        type: 'send',
        channel: String(channel),
        fields: Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, text(value)])),
      };
    }
    case 'wait': {
      const until = step.until as { time: string; timezone?: string } | undefined;
      const blank = blankStep('wait') as Extract<FormStep, { type: 'wait' }>;
      if (until) return { ...blank, mode: 'until', time: until.time, timezone: until.timezone ?? '' };
      const { within, unit } = windowOf(step.duration as string);
      return { ...blank, amount: within, unit };
    }
    case 'branch':
      return branchToForm(step);
    case 'split':
      return {
        type: 'split',
        paths: (step.paths as { weight: number; steps: Json[] }[]).map((path) => ({
          weight: String(path.weight),
          steps: path.steps.map(stepToForm),
        })),
      };
    default:
      return { type: 'exit' };
  }
}

function branchToForm(step: Json): FormStep {
  const condition = step.if as Json;
  const arms = {
    yes: ((step.then as Json[] | undefined) ?? []).map(stepToForm),
    no: ((step.else as Json[] | undefined) ?? []).map(stepToForm),
  };
  const blank = { type: 'branch' as const, segment: '', event: '', where: '', rule: '', ...arms };
  if ('segment' in condition) return { ...blank, kind: 'segment', segment: String(condition.segment) };
  if ('since' in condition)
    return { ...blank, kind: 'event', event: String(condition.event), where: jsonText(condition.where) };
  return { ...blank, kind: 'rule', rule: jsonText(condition) };
}

/** A campaign definition (as the API returns or takes it) as a draft. */
export function definitionToDraft(definition: Json): Draft {
  const trigger = (definition.trigger ?? {}) as Json;
  const goal = definition.goal as Json | null | undefined;
  const tracking = definition.tracking as { opens: boolean; clicks: boolean } | undefined;
  const type = TRIGGER_TYPES.includes(trigger.type as TriggerType) ? (trigger.type as TriggerType) : 'event';
  return {
    name: text(definition.name),
    trigger: {
      type,
      eventType: text(trigger.eventType),
      where: jsonText(trigger.where),
      segmentId: text(trigger.segmentId),
      sendAt: localUtc(trigger.sendAt as string | undefined),
    },
    steps: Array.isArray(definition.steps) ? (definition.steps as Json[]).map(stepToForm) : [],
    reentry: text(definition.reentry) || 'never',
    goal: { eventType: text(goal?.eventType), where: jsonText(goal?.where) },
    tracking: tracking ?? { opens: true, clicks: true },
  };
}

export function pacingToDraft(pacing: {
  frequencyCap?: { count: number; per: string } | null;
  quietHours?: { start: string; end: string } | null;
}): PacingDraft {
  const per = windowOf(pacing.frequencyCap?.per);
  return {
    capCount: text(pacing.frequencyCap?.count),
    capPer: per.within,
    capUnit: per.unit,
    quietStart: pacing.quietHours?.start ?? '',
    quietEnd: pacing.quietHours?.end ?? '',
  };
}

// ---- posted fields → draft ----

export type Fields = Record<string, unknown>;

/**
 * A posted field's text. Browsers send a textarea's line breaks as CRLF: read back as LF, so that
 * saving a campaign unchanged from the form leaves its templates as they were.
 */
const field = (body: Fields, name: string) => {
  const value = body[name];
  return typeof value === 'string' ? value.replaceAll('\u0000', '').replace(/\r\n?/g, '\n') : '';
};

const oneOf = <T extends string>(value: string, options: readonly T[], fallback: T): T =>
  options.includes(value as T) ? (value as T) : fallback;

/** The fields a channel's send step has besides type and channel, in the schema's order. */
export function sendFieldNames(channel: string): string[] {
  const shape = (channelNamed(channel).step as unknown as { shape: Record<string, unknown> }).shape;
  return Object.keys(shape).filter((key) => key !== 'type' && key !== 'channel');
}

const channelNames = () => CHANNEL_REGISTRY.map((channel) => channel.name as string);

/** A send step's fields, the channel's, by name: after a change of channel the fields both have keep their values. */
function readSend(body: Fields, at: string): FormStep {
  const channel = oneOf(field(body, `${at}.channel`), channelNames(), CHANNEL_REGISTRY[0].name);
  const fields = Object.fromEntries(
    sendFieldNames(channel).map((name) => [name, field(body, `${at}.${name}`)]),
  );
  return { type: 'send', channel, fields };
}

function readStep(body: Fields, at: string, depth: number): FormStep {
  const type = oneOf(field(body, `${at}.type`), STEP_TYPES, 'exit');
  switch (type) {
    case 'send':
      return readSend(body, at);
    case 'wait':
      return {
        type,
        mode: oneOf(field(body, `${at}.wait`), ['duration', 'until'] as const, 'duration'),
        amount: field(body, `${at}.duration`),
        unit: oneOf(field(body, `${at}.durationUnit`), WINDOW_UNITS, 'days'),
        time: field(body, `${at}.until.time`),
        timezone: field(body, `${at}.until.timezone`),
      };
    case 'branch':
      return {
        type,
        kind: oneOf(field(body, `${at}.if.kind`), ['segment', 'event', 'rule'] as const, 'event'),
        segment: field(body, `${at}.if.segment`),
        event: field(body, `${at}.if.event`),
        where: field(body, `${at}.if.where`),
        rule: field(body, `${at}.if`),
        yes: readSteps(body, `${at}.then`, depth + 1),
        no: readSteps(body, `${at}.else`, depth + 1),
      };
    case 'split': {
      const paths = [];
      for (let i = 0; `${at}.paths[${i}].weight` in body; i++) {
        paths.push({
          weight: field(body, `${at}.paths[${i}].weight`),
          steps: readSteps(body, `${at}.paths[${i}].steps`, depth + 1),
        });
      }
      return { type, paths };
    }
    default:
      return { type: 'exit' };
  }
}

/**
 * Each posted step carries its type; the list ends at the first index without one. Lists nested
 * deeper than the schema allows one level past it are not read (the form never shows them; the
 * schema refuses the level past it): a crafted form cannot make the reading recurse without end.
 */
function readSteps(body: Fields, list: string, depth: number): FormStep[] {
  if (depth > MAX_NESTING + 1) return [];
  const steps = [];
  for (let i = 0; `${list}[${i}].type` in body && i < 1000; i++)
    steps.push(readStep(body, `${list}[${i}]`, depth));
  return steps;
}

export function readDraft(body: Fields): Draft {
  return {
    name: field(body, 'name'),
    trigger: {
      type: oneOf(field(body, 'trigger.type'), TRIGGER_TYPES, 'event'),
      eventType: field(body, 'trigger.eventType'),
      where: field(body, 'trigger.where'),
      segmentId: field(body, 'trigger.segmentId'),
      sendAt: field(body, 'trigger.sendAt'),
    },
    steps: readSteps(body, 'steps', 0),
    reentry: field(body, 'reentry') || 'never',
    goal: { eventType: field(body, 'goal.eventType'), where: field(body, 'goal.where') },
    tracking: {
      opens: field(body, 'tracking.opens') === 'on',
      clicks: field(body, 'tracking.clicks') === 'on',
    },
  };
}

export function readPacingDraft(body: Fields): PacingDraft {
  return {
    capCount: field(body, 'pacing.frequencyCap.count'),
    capPer: field(body, 'pacing.frequencyCap.per'),
    capUnit: oneOf(field(body, 'pacing.frequencyCap.perUnit'), WINDOW_UNITS, 'days'),
    quietStart: field(body, 'pacing.quietHours.start'),
    quietEnd: field(body, 'pacing.quietHours.end'),
  };
}

// ---- draft → definition ----

/** Parses a JSON field; a problem names the field. Empty: absent. */
function parsedJson(value: string, name: string, problems: FieldProblem[]): unknown {
  if (value.trim() === '') return undefined;
  try {
    return JSON.parse(value);
  } catch (error) {
    problems.push({ field: name, message: `is not valid JSON: ${(error as Error).message}` });
    return undefined;
  }
}

/** A datetime-local value, read as UTC (what the form says); anything else is left for the schema. */
function utcInstant(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  const local = /^(\d{4}-\d\d-\d\dT\d\d:\d\d)(:\d\d(\.\d+)?)?$/.exec(value.trim());
  return local ? `${local[1]}${local[2] ?? ':00'}Z` : value;
}

/** A field of a channel's step schema, as far as the form reads it (zod 4's own definition). */
export type FieldSchema = {
  def: { type: string; innerType?: FieldSchema; entries?: Record<string, string> };
  maxLength?: number | null;
};

/** The field's schema under `optional`, and whether it was optional. */
export function unwrapOptional(schema: FieldSchema): { inner: FieldSchema; optional: boolean } {
  let inner = schema;
  let optional = false;
  while (inner.def.type === 'optional' && inner.def.innerType) {
    optional = true;
    inner = inner.def.innerType;
  }
  return { inner, optional };
}

/** The send step's inputs as the channel's schema types them: empty optional ones are left out. */
function sendToDefinition(step: Extract<FormStep, { type: 'send' }>): Json {
  const shape = (channelNamed(step.channel).step as unknown as { shape: Record<string, FieldSchema> }).shape;
  const out: Json = { type: 'send', channel: step.channel };
  for (const name of sendFieldNames(step.channel)) {
    const value = step.fields[name] ?? '';
    const { inner, optional } = unwrapOptional(shape[name]!);
    const kind = inner.def.type;
    if (value === '' && (optional || kind !== 'string')) continue;
    out[name] = kind === 'number' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  }
  return out;
}

function stepToDefinition(step: FormStep, at: string, problems: FieldProblem[]): Json {
  switch (step.type) {
    case 'send':
      return sendToDefinition(step);
    case 'wait':
      if (step.mode === 'until')
        return {
          type: 'wait',
          until: { time: step.time, ...(step.timezone.trim() ? { timezone: step.timezone.trim() } : {}) },
        };
      if (!/^\d+$/.test(step.amount.trim())) {
        problems.push({ field: `${at}.duration`, message: `must be a whole number of ${step.unit}` });
        return { type: 'wait', duration: step.amount };
      }
      return { type: 'wait', duration: UNIT_ISO[step.unit](String(Number(step.amount))) };
    case 'branch':
      return {
        type: 'branch',
        if: conditionOf(step, at, problems),
        // biome-ignore lint/suspicious/noThenProperty: the branch step's arms are named then and else
        then: stepsToDefinition(step.yes, `${at}.then`, problems),
        else: stepsToDefinition(step.no, `${at}.else`, problems),
      };
    case 'split':
      return {
        type: 'split',
        paths: step.paths.map((path, i) => ({
          weight: /^\d+$/.test(path.weight.trim()) ? Number(path.weight) : path.weight,
          steps: stepsToDefinition(path.steps, `${at}.paths[${i}].steps`, problems),
        })),
      };
    default:
      return { type: 'exit' };
  }
}

function conditionOf(step: Extract<FormStep, { type: 'branch' }>, at: string, problems: FieldProblem[]) {
  if (step.kind === 'segment') return { segment: step.segment };
  if (step.kind === 'event') {
    const where = parsedJson(step.where, `${at}.if.where`, problems);
    return { event: step.event, since: 'enrollment', ...(where === undefined ? {} : { where }) };
  }
  return parsedJson(step.rule, `${at}.if`, problems) ?? {};
}

function stepsToDefinition(steps: FormStep[], list: string, problems: FieldProblem[]): Json[] {
  return steps.map((step, i) => stepToDefinition(step, `${list}[${i}]`, problems));
}

/** The draft as the API's request body (unchecked), and what could not even be read. */
export function draftToDefinition(draft: Draft): { definition: Json; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const t = draft.trigger;
  const triggerWhere = parsedJson(t.where, 'trigger.where', problems);
  const trigger =
    t.type === 'event'
      ? {
          type: 'event',
          eventType: t.eventType,
          ...(triggerWhere === undefined ? {} : { where: triggerWhere }),
        }
      : t.type === 'segment_entered'
        ? { type: t.type, segmentId: t.segmentId }
        : {
            type: t.type,
            segmentId: t.segmentId,
            ...(utcInstant(t.sendAt) ? { sendAt: utcInstant(t.sendAt) } : {}),
          };
  const goalWhere = parsedJson(draft.goal.where, 'goal.where', problems);
  const goal =
    draft.goal.eventType.trim() === '' && goalWhere === undefined
      ? {}
      : {
          goal: { eventType: draft.goal.eventType, ...(goalWhere === undefined ? {} : { where: goalWhere }) },
        };
  const definition = {
    name: draft.name,
    trigger,
    steps: stepsToDefinition(draft.steps, 'steps', problems),
    reentry: draft.reentry,
    ...goal,
    tracking: draft.tracking,
  };
  return { definition, problems };
}

/** The pacing the draft asks for: empty fields mean no cap, no quiet hours. */
export function draftToPacing(pacing: PacingDraft): Json {
  const cap =
    pacing.capCount.trim() === '' && pacing.capPer.trim() === ''
      ? null
      : {
          count: /^\d+$/.test(pacing.capCount.trim()) ? Number(pacing.capCount) : pacing.capCount,
          per: /^\d+$/.test(pacing.capPer.trim())
            ? UNIT_ISO[pacing.capUnit](String(Number(pacing.capPer)))
            : pacing.capPer,
        };
  const quiet =
    pacing.quietStart === '' && pacing.quietEnd === ''
      ? null
      : { start: pacing.quietStart, end: pacing.quietEnd };
  return { frequencyCap: cap, quietHours: quiet };
}

// ---- the form's buttons ----

/** A list's place: `steps`, `steps[2].then`, `steps[3].paths[1].steps`. */
const LIST_PATH = /^steps(\[\d+\]\.(then|else|paths\[\d+\]\.steps))*$/;
const STEP_PATH = /^(steps(?:\[\d+\]\.(?:then|else|paths\[\d+\]\.steps))*)\[(\d+)\]$/;

/** The list at a path of the draft, or undefined when the path names none. */
function listAt(draft: Draft, path: string): FormStep[] | undefined {
  if (!LIST_PATH.test(path)) return undefined;
  let list: FormStep[] = draft.steps;
  for (const [, index, arm, pathIndex] of path.matchAll(/\[(\d+)\]\.(then|else|paths\[(\d+)\]\.steps)/g)) {
    const step = list[Number(index)];
    if (step?.type === 'branch' && (arm === 'then' || arm === 'else'))
      list = arm === 'then' ? step.yes : step.no;
    else if (step?.type === 'split' && pathIndex !== undefined && step.paths[Number(pathIndex)])
      list = step.paths[Number(pathIndex)]!.steps;
    else return undefined;
  }
  return list;
}

/** How many branches and splits hold the list at this path. */
export const depthOf = (listPath: string) => (listPath.match(/\]\.(then|else|paths)/g) ?? []).length;

/** May a step of this type go in the list at this path (branches and splits nest MAX_NESTING deep). */
export const fitsAt = (type: StepType, listPath: string) =>
  (type !== 'branch' && type !== 'split') || depthOf(listPath) < MAX_NESTING;

function stepAtPath(draft: Draft, path: string): { list: FormStep[]; index: number } | undefined {
  const match = STEP_PATH.exec(path);
  const list = match ? listAt(draft, match[1]!) : undefined;
  if (!match || !list) return undefined;
  const index = Number(match[2]);
  return index < list.length ? { list, index } : undefined;
}

/**
 * Applies one of the form's buttons to the draft (in place): `add:<list>@<index>:<type>`,
 * `remove:<step>`, `up:<step>`, `down:<step>`, `addPath:<split step>`, `removePath:<split step>@<i>`.
 * Returns the field to focus on the re-rendered page (the step moved or added), or null.
 */
export function applyAction(draft: Draft, action: string): string | null {
  const [verb, ...rest] = action.split(':');
  const target = rest.join(':');
  if (verb === 'add') {
    const match = /^(.+)@(\d+):(\w+)$/.exec(target);
    const list = match ? listAt(draft, match[1]!) : undefined;
    const type = match?.[3] as StepType;
    if (!match || !list || !STEP_TYPES.includes(type) || !fitsAt(type, match[1]!)) return null;
    const index = Math.min(Number(match[2]), list.length);
    list.splice(index, 0, blankStep(type));
    return `${match[1]}[${index}]`;
  }
  if (verb === 'addPath' || verb === 'removePath') return changePaths(draft, verb, target);
  const found = stepAtPath(draft, target);
  if (!found) return null;
  const { list, index } = found;
  const base = target.slice(0, target.lastIndexOf('['));
  if (verb === 'remove') {
    list.splice(index, 1);
    // The focus goes to the step that took its place (or the one before it), if any.
    return list.length ? `${base}[${Math.min(index, list.length - 1)}]` : null;
  }
  const to = verb === 'up' ? index - 1 : verb === 'down' ? index + 1 : -1;
  if (to < 0 || to >= list.length) return null;
  [list[index], list[to]] = [list[to]!, list[index]!];
  return `${base}[${to}]`;
}

function changePaths(draft: Draft, verb: string, target: string): string | null {
  const match = /^(.+?)(?:@(\d+))?$/.exec(target);
  const found = match ? stepAtPath(draft, match[1]!) : undefined;
  const step = found?.list[found.index];
  if (!match || step?.type !== 'split') return null;
  if (verb === 'addPath') {
    step.paths.push({ weight: '1', steps: [] });
    return `${match[1]}.paths[${step.paths.length - 1}].weight`;
  }
  const index = Number(match[2]);
  if (match[2] !== undefined && index < step.paths.length) step.paths.splice(index, 1);
  return null;
}

/** A refusal's path (`body.steps.2.then.1.subject`) as the form's field name (`steps[2].then[1].subject`). */
export function fieldOfPath(path: string): string {
  return path.replace(/^body\.?/, '').replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

// ---- where a refusal is shown ----

const TOP_ANCHORS = [
  'name',
  'trigger',
  'trigger.eventType',
  'trigger.where',
  'trigger.segmentId',
  'trigger.sendAt',
  'steps',
  'reentry',
  'goal',
  'goal.eventType',
  'goal.where',
  'tracking',
  'pacing',
  'pacing.frequencyCap.count',
  'pacing.frequencyCap.per',
  'pacing.quietHours.start',
  'pacing.quietHours.end',
];

/** The fields of a step the form shows, by their name after the step's path. */
export function stepFieldNames(step: FormStep): string[] {
  switch (step.type) {
    case 'send':
      return ['channel', ...sendFieldNames(step.channel)];
    case 'wait':
      return ['duration', 'durationUnit', 'until.time', 'until.timezone'];
    case 'branch':
      return ['if', 'if.segment', 'if.event', 'if.where'];
    default:
      return [];
  }
}

/** Every place of the form a refusal can be shown at: fields by name, steps by path. */
export function anchorsOf(draft: Draft): Set<string> {
  const anchors = new Set(TOP_ANCHORS);
  const walk = (steps: FormStep[], list: string) =>
    steps.forEach((step, i) => {
      const at = `${list}[${i}]`;
      anchors.add(at);
      for (const name of stepFieldNames(step)) anchors.add(`${at}.${name}`);
      if (step.type === 'branch') {
        walk(step.yes, `${at}.then`);
        walk(step.no, `${at}.else`);
      }
      if (step.type === 'split') {
        step.paths.forEach((path, j) => {
          anchors.add(`${at}.paths[${j}].weight`);
          walk(path.steps, `${at}.paths[${j}].steps`);
        });
      }
    });
  walk(draft.steps, 'steps');
  return anchors;
}

/** The nearest place a field name (from a refusal's path) is shown at: itself, or what holds it. */
export function anchorFor(anchors: Set<string>, name: string): string | null {
  let candidate = name;
  while (candidate !== '') {
    if (anchors.has(candidate)) return candidate;
    const cut = Math.max(candidate.lastIndexOf('.'), candidate.lastIndexOf('['));
    candidate = cut > 0 ? candidate.slice(0, cut) : '';
  }
  return null;
}

/** A step's path as the flow diagram names it: `steps[3].paths[1].steps[0]` is step 3.paths.1.0. */
export function stepKeyOf(path: string): string {
  return path
    .replace(/^steps/, '')
    .replace(/\.paths\[(\d+)\]\.steps/g, '.paths.$1')
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/^\./, '');
}
