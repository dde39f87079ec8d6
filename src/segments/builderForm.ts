// The segment builder as an HTML form that works without JavaScript: the rule tree flattened into
// named fields (`r` the root group, `r.0` its first entry, `r.0.1` that group's second, each field
// `<path>:<name>`), read back into a tree, and changed by submit buttons (`action=add:r.0:event`,
// `action=remove:r.0.1`) that re-render the form. A tree is turned into the rule JSON and validated
// by the very schema the API uses (SegmentRules), so the form can say nothing the API would not.
//
// Groups are "all of", "any of" and "none of": `{not: x}` reads as "none of [x]" and
// `{not: {any: [...]}}` as "none of [...]", and they are written back the same way. Counts and
// scores are "at least" / "at most" bounds: every comparison of whole numbers is one of those or
// both (gt 3 is at least 4, eq 5 is at least 5 and at most 5), so nothing is lost either way.
import {
  CONTACT_FIELDS,
  type Comparison,
  type ContactField,
  type MetadataCondition,
  OPS,
  type Op,
  type Rule,
  type Scalar,
} from './conditionSchemas.ts';
import { durationSeconds } from './duration.ts';

export type ValueType = 'text' | 'number' | 'boolean';
export type WindowUnit = 'minutes' | 'hours' | 'days' | 'weeks';
export type Bounds = { min: string; max: string };

export type FormNode =
  | { type: 'all' | 'any' | 'none'; children: FormNode[] }
  | { type: 'field'; field: ContactField; op: Op; value: string }
  | { type: 'attribute'; attribute: string; op: Op; value: string; valueType: ValueType }
  | { type: 'event'; event: string; count: Bounds; within: string; unit: WindowUnit; where: string }
  | { type: 'leadScore'; score: Bounds };

export const GROUP_TYPES = ['all', 'any', 'none'] as const;
export const CONDITION_TYPES = ['attribute', 'field', 'event', 'leadScore'] as const;
export type NodeType = (typeof GROUP_TYPES)[number] | (typeof CONDITION_TYPES)[number];

const UNIT_SECONDS: Record<WindowUnit, number> = { weeks: 604_800, days: 86_400, hours: 3_600, minutes: 60 };
export const WINDOW_UNITS: readonly WindowUnit[] = ['minutes', 'hours', 'days', 'weeks'];

/** An amount of a unit as an ISO 8601 duration (`2`, `weeks` → `P2W`). */
export const UNIT_ISO: Record<WindowUnit, (n: string) => string> = {
  weeks: (n) => `P${n}W`,
  days: (n) => `P${n}D`,
  hours: (n) => `PT${n}H`,
  minutes: (n) => `PT${n}M`,
};

/** A fresh condition or group of this type, as the "add" buttons make it. */
export function blankNode(type: NodeType): FormNode {
  switch (type) {
    case 'all':
    case 'any':
    case 'none':
      return { type, children: [] };
    case 'field':
      return { type, field: 'email', op: 'ends_with', value: '' };
    case 'attribute':
      return { type, attribute: '', op: 'eq', value: '', valueType: 'text' };
    case 'event':
      return { type, event: '', count: { min: '1', max: '' }, within: '30', unit: 'days', where: '' };
    default:
      return { type: 'leadScore', score: { min: '', max: '' } };
  }
}

// ---- rule → form ----

function boundsOf(comparison: Comparison | undefined): Bounds {
  const c = comparison ?? { gte: 1 };
  const mins = [c.gte, c.gt === undefined ? undefined : c.gt + 1, c.eq].filter((n) => n !== undefined);
  const maxes = [c.lte, c.lt === undefined ? undefined : c.lt - 1, c.eq].filter((n) => n !== undefined);
  return {
    min: mins.length ? String(Math.max(...mins)) : '',
    max: maxes.length ? String(Math.min(...maxes)) : '',
  };
}

/** An ISO 8601 duration as an amount of the largest unit that divides it (`P2W` → 2 weeks). */
export function windowOf(within: string | undefined | null): { within: string; unit: WindowUnit } {
  if (!within) return { within: '', unit: 'days' };
  const seconds = durationSeconds(within) ?? 0;
  for (const unit of ['weeks', 'days', 'hours', 'minutes'] as const) {
    if (seconds % UNIT_SECONDS[unit] === 0) return { within: String(seconds / UNIT_SECONDS[unit]), unit };
  }
  return { within: String(Math.ceil(seconds / 60)), unit: 'minutes' };
}

function valueText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map((item) => String(item)).join(', ');
  return String(value);
}

function valueTypeOf(value: unknown): ValueType {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'number') return 'number';
  if (typeof first === 'boolean') return 'boolean';
  return 'text';
}

function toFormNode(rule: Rule): FormNode {
  if ('all' in rule) return { type: 'all', children: rule.all.map(toFormNode) };
  if ('any' in rule) return { type: 'any', children: rule.any.map(toFormNode) };
  if ('not' in rule) {
    const inner = rule.not;
    return { type: 'none', children: 'any' in inner ? inner.any.map(toFormNode) : [toFormNode(inner)] };
  }
  if ('leadScore' in rule) return { type: 'leadScore', score: boundsOf(rule.leadScore) };
  if ('event' in rule) {
    const where = rule.where?.length ? JSON.stringify(rule.where) : '';
    return { type: 'event', event: rule.event, count: boundsOf(rule.count), ...windowOf(rule.within), where };
  }
  if ('attribute' in rule) {
    return {
      type: 'attribute',
      attribute: rule.attribute,
      op: rule.op,
      value: valueText(rule.value),
      valueType: valueTypeOf(rule.value),
    };
  }
  return { type: 'field', field: rule.field, op: rule.op, value: valueText(rule.value) };
}

/** The form of a rule: the root is always a group (a lone condition becomes "all of" it). */
export function ruleToForm(rule: Rule): FormNode {
  const node = toFormNode(rule);
  return 'children' in node ? node : { type: 'all', children: [node] };
}

// ---- form → rule ----

function comparisonOf(bounds: Bounds): Comparison | undefined {
  const min = bounds.min.trim();
  const max = bounds.max.trim();
  if (min !== '' && min === max) return { eq: Number(min) };
  const comparison: Comparison = {};
  if (min !== '') comparison.gte = Number(min);
  if (max !== '') comparison.lte = Number(max);
  return Object.keys(comparison).length ? comparison : undefined;
}

const LIST_OPS: readonly Op[] = ['in', 'not_in'];
const NO_VALUE_OPS: readonly Op[] = ['exists', 'not_exists'];
const ORDER_OPS: readonly Op[] = ['gt', 'gte', 'lt', 'lte'];

function typed(text: string, type: ValueType, op: Op): Scalar {
  const trimmed = text.trim();
  if (type === 'boolean') return trimmed.toLowerCase() === 'true';
  // Whatever does not read as a number goes as typed: the schema then says what is wrong with it.
  if (type === 'number' && trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  return ORDER_OPS.includes(op) ? trimmed : text;
}

function valueFor(op: Op, text: string, type: ValueType): Scalar | Scalar[] | undefined {
  if (NO_VALUE_OPS.includes(op)) return undefined;
  if (LIST_OPS.includes(op)) {
    return text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
      .map((item) => typed(item, type, op));
  }
  return typed(text, type, op);
}

function parsedWhere(text: string): MetadataCondition[] | string | undefined {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text; // the schema refuses it by name
  }
}

/** The object without its undefined entries: an absent `within` is no key at all. */
function defined(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

/** The rule JSON of a form tree, unvalidated (parse it with SegmentRules). */
export function formToRule(node: FormNode): unknown {
  switch (node.type) {
    case 'all':
    case 'any':
      return { [node.type]: node.children.map(formToRule) };
    case 'none': {
      const children = node.children.map(formToRule);
      return { not: children.length === 1 ? children[0] : { any: children } };
    }
    case 'leadScore':
      return { leadScore: comparisonOf(node.score) ?? {} };
    case 'event': {
      const within = node.within.trim() === '' ? undefined : UNIT_ISO[node.unit](node.within.trim());
      const count = comparisonOf(node.count);
      // "At least once" is what an event condition means without a count: written as such.
      const implied = count && Object.keys(count).length === 1 && count.gte === 1;
      return defined({
        event: node.event,
        count: implied ? undefined : count,
        within,
        where: parsedWhere(node.where),
      });
    }
    case 'attribute':
      return defined({
        attribute: node.attribute,
        op: node.op,
        value: valueFor(node.op, node.value, node.valueType),
      });
    default:
      return defined({ field: node.field, op: node.op, value: valueFor(node.op, node.value, 'text') });
  }
}

/** The root as the API stores it: a group of one condition is that condition. */
export function formToRootRule(root: FormNode): unknown {
  if ((root.type === 'all' || root.type === 'any') && root.children.length === 1) {
    return formToRule(root.children[0]!);
  }
  return formToRule(root);
}

// ---- posted fields → form ----

export type Posted = Record<string, string | string[] | undefined>;

function one(posted: Posted, name: string): string {
  const value = posted[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function pick<T extends string>(value: string, allowed: readonly T[], fallback: T): T {
  return (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

/** How deep and wide a posted tree may go: past the rule limits the schema refuses it anyway. */
const MAX_DEPTH = 8;
const MAX_CHILDREN = 60;

function readNode(posted: Posted, path: string, depth: number): FormNode {
  const field = (name: string) => one(posted, `${path}:${name}`);
  const type = pick(field('type'), [...GROUP_TYPES, ...CONDITION_TYPES], 'all');
  switch (type) {
    case 'all':
    case 'any':
    case 'none': {
      const children: FormNode[] = [];
      if (depth < MAX_DEPTH) {
        for (let index = 0; index < MAX_CHILDREN && posted[`${path}.${index}:type`] !== undefined; index++) {
          children.push(readNode(posted, `${path}.${index}`, depth + 1));
        }
      }
      return { type, children };
    }
    case 'field':
      return {
        type,
        field: pick(field('field'), CONTACT_FIELDS, 'email'),
        op: pick(field('op'), OPS, 'eq'),
        value: field('value'),
      };
    case 'attribute':
      return {
        type,
        attribute: field('attribute').trim(),
        op: pick(field('op'), OPS, 'eq'),
        value: field('value'),
        valueType: pick(field('valueType'), ['text', 'number', 'boolean'], 'text'),
      };
    case 'event':
      return {
        type,
        event: field('event').trim(),
        count: { min: field('min'), max: field('max') },
        within: field('within'),
        unit: pick(field('unit'), ['minutes', 'hours', 'days', 'weeks'], 'days'),
        where: field('where'),
      };
    default:
      return { type: 'leadScore', score: { min: field('min'), max: field('max') } };
  }
}

export function readForm(posted: Posted): FormNode {
  return readNode(posted, 'r', 0);
}

// ---- the add and remove buttons ----

function childAt(root: FormNode, path: string): FormNode | null {
  let node: FormNode | undefined = root;
  for (const index of path.split('.').slice(1)) {
    if (!node || !('children' in node)) return null;
    node = node.children[Number(index)];
  }
  return node ?? null;
}

/**
 * The tree after an `action` button: `add:<group path>:<type>` appends a blank entry to the group,
 * `remove:<path>` takes an entry out (the root stays). Anything else leaves the tree as it is.
 */
export function applyAction(root: FormNode, action: string): FormNode {
  const tree = structuredClone(root);
  const [verb, path = '', type = ''] = action.split(':');
  if (verb === 'add') {
    const group = childAt(tree, path);
    const kinds: readonly string[] = [...GROUP_TYPES, ...CONDITION_TYPES];
    if (group && 'children' in group && kinds.includes(type) && group.children.length < MAX_CHILDREN) {
      group.children.push(blankNode(type as NodeType));
    }
  } else if (verb === 'remove' && path.includes('.')) {
    const parentPath = path.slice(0, path.lastIndexOf('.'));
    const parent = childAt(tree, parentPath);
    if (parent && 'children' in parent) parent.children.splice(Number(path.slice(parentPath.length + 1)), 1);
  }
  return tree;
}

/** The fields a tree posts, by name: what the rendered form sends back (readForm's inverse). */
export function formFields(node: FormNode, path = 'r'): Record<string, string> {
  const own = (values: Record<string, string>) =>
    Object.fromEntries(Object.entries(values).map(([name, value]) => [`${path}:${name}`, value]));
  switch (node.type) {
    case 'all':
    case 'any':
    case 'none':
      return Object.assign(
        own({ type: node.type }),
        ...node.children.map((child, index) => formFields(child, `${path}.${index}`)),
      );
    case 'field':
      return own({ type: node.type, field: node.field, op: node.op, value: node.value });
    case 'attribute':
      return own({
        type: node.type,
        attribute: node.attribute,
        op: node.op,
        value: node.value,
        valueType: node.valueType,
      });
    case 'event':
      return own({
        type: node.type,
        event: node.event,
        min: node.count.min,
        max: node.count.max,
        within: node.within,
        unit: node.unit,
        where: node.where,
      });
    default:
      return own({ type: node.type, min: node.score.min, max: node.score.max });
  }
}
