// A rule in words, for people reading a segment's page or its statistics: `{all: [{field: 'email',
// op: 'ends_with', value: '@acme.com'}, {event: 'purchase', count: {gte: 3}, within: 'P30D'}]}`
// reads `email ends with @acme.com and at least 3 "purchase" events in the last 30 days`. Event
// names are always quoted; other text only when it would not read as one word (spaces, quotes,
// an empty string), so `plan is pro` but `city is "New York"`.
import type {
  Comparison,
  ContactField,
  EventCondition,
  MetadataCondition,
  Op,
  Rule,
  Scalar,
} from './conditionSchemas.ts';

const FIELD_NAMES: Record<ContactField, string> = {
  email: 'email',
  firstName: 'first name',
  lastName: 'last name',
  phone: 'phone',
  createdAt: 'created at',
};

export const OP_WORDS: Record<Op, string> = {
  eq: 'is',
  neq: 'is not',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  exists: 'is set',
  not_exists: 'is not set',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  in: 'is one of',
  not_in: 'is none of',
};

/** Ordering operators read as time when they compare dates. */
export const DATE_OP_WORDS: Partial<Record<Op, string>> = {
  gt: 'is after',
  gte: 'is on or after',
  lt: 'is before',
  lte: 'is on or before',
};

const PLAIN_WORD = /^[\p{L}\p{N}_@.+\-:/#]+$/u;

function literal(value: Scalar): string {
  if (typeof value !== 'string') return String(value);
  return PLAIN_WORD.test(value) ? value : JSON.stringify(value);
}

function list(values: readonly Scalar[], last: 'or' | 'nor'): string {
  const words = values.map(literal);
  if (words.length === 1) return words[0]!;
  return `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`;
}

function comparisonOf(subject: string, op: Op, value: unknown): string {
  if (op === 'exists' || op === 'not_exists') return `${subject} ${OP_WORDS[op]}`;
  if (op === 'in') return `${subject} is one of ${list(value as Scalar[], 'or')}`;
  if (op === 'not_in') return `${subject} is none of ${list(value as Scalar[], 'nor')}`;
  const words = (typeof value === 'string' && DATE_OP_WORDS[op]) || OP_WORDS[op];
  return `${subject} ${words} ${literal(value as Scalar)}`;
}

function metadataCondition(condition: MetadataCondition): string {
  return comparisonOf(condition.path, condition.op, condition.value);
}

const BOUND_WORDS: Record<keyof Comparison, string> = {
  eq: 'exactly',
  gte: 'at least',
  gt: 'more than',
  lte: 'at most',
  lt: 'fewer than',
};

function bounds(comparison: Comparison, words = BOUND_WORDS): string {
  return (Object.entries(comparison) as [keyof Comparison, number][])
    .map(([key, bound]) => `${words[key]} ${bound}`)
    .join(' and ');
}

const UNITS: [string, string][] = [
  ['Y', 'year'],
  ['M', 'month'],
  ['W', 'week'],
  ['D', 'day'],
  ['H', 'hour'],
  ['TM', 'minute'],
  ['S', 'second'],
];

/** `P30D` → `30 days`, `PT1H30M` → `1 hour 30 minutes`, `P1D` → `day`. */
export function durationInWords(duration: string): string {
  const [date = '', time = ''] = duration.slice(1).split('T');
  const parts: [number, string][] = [];
  for (const [key, name] of UNITS) {
    const source = key === 'TM' || key === 'H' || key === 'S' ? time : date;
    const unit = key === 'TM' ? 'M' : key;
    const match = new RegExp(`(\\d+)${unit}`).exec(source);
    if (match && Number(match[1]) > 0) parts.push([Number(match[1]), name]);
  }
  if (parts.length === 1 && parts[0]![0] === 1) return parts[0]![1];
  return parts.map(([count, name]) => `${count} ${name}${count === 1 ? '' : 's'}`).join(' ');
}

function eventCondition(event: EventCondition): string {
  const count = event.count ?? { gte: 1 };
  const values = Object.values(count);
  const none = (count.eq === 0 || count.lt === 1 || count.lte === 0) && values.length === 1;
  const singular = values.length === 1 && values[0] === 1;
  const name = JSON.stringify(event.event);
  let text = none ? `no ${name} events` : `${bounds(count)} ${name} event${singular ? '' : 's'}`;
  if (event.within) text += ` in the last ${durationInWords(event.within)}`;
  if (event.where?.length) text += ` where ${event.where.map(metadataCondition).join(' and ')}`;
  return text;
}

const SCORE_WORDS: Record<keyof Comparison, string> = { ...BOUND_WORDS, lt: 'less than' };

function node(rule: Rule, nested: boolean): string {
  const group = (parts: Rule[], joiner: string) => {
    if (parts.length === 1) return node(parts[0]!, nested);
    const text = parts.map((part) => node(part, true)).join(joiner);
    return nested ? `(${text})` : text;
  };
  if ('all' in rule) return group(rule.all, ' and ');
  if ('any' in rule) return group(rule.any, ' or ');
  if ('not' in rule) return `not (${node(rule.not, false)})`;
  if ('leadScore' in rule) return `lead score is ${bounds(rule.leadScore, SCORE_WORDS)}`;
  if ('event' in rule) return eventCondition(rule);
  if ('attribute' in rule) return comparisonOf(`attribute ${rule.attribute}`, rule.op, rule.value);
  return comparisonOf(FIELD_NAMES[rule.field], rule.op, rule.value);
}

/** The rule as one sentence fragment, groups within groups in parentheses. */
export function describeRule(rule: Rule): string {
  return node(rule, false);
}
