// Rules → one parameterised SQL boolean. Every value travels as a bind parameter and every JSON
// path as a text[] parameter; only fixed SQL text comes from this file. Each condition is
// two-valued (coalesce to false), so `not` and the negative operators treat a missing value as
// "does not match": `neq "pro"` holds for a contact without a plan. The same semantics run in
// plain JavaScript in match.ts; a test holds the two against each other.
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../db/pool.ts';
import { durationSeconds } from './duration.ts';
import { ISO_INSTANT_PATTERN, parseInstant } from './instant.ts';
import { foldCase } from './match.ts';
import type {
  Comparison,
  ContactField,
  EventCondition,
  MetadataCondition,
  Op,
  Rule,
  Scalar,
} from './ruleSchemas.ts';

type Fragment = FragmentSqlToken;

/** What a condition can read from its target: text, a number, the JSON value itself. */
type Target = { text: Fragment; number: Fragment | null; json: Fragment | null; present: Fragment };

const NEGATIONS: Partial<Record<Op, Op>> = {
  neq: 'eq',
  not_contains: 'contains',
  not_exists: 'exists',
  not_in: 'in',
};
const ORDER_SQL = { gt: sql.fragment`>`, gte: sql.fragment`>=`, lt: sql.fragment`<`, lte: sql.fragment`<=` };
const BOUND_SQL = { ...ORDER_SQL, eq: sql.fragment`=` };

function jsonTarget(json: Fragment): Target {
  return {
    json,
    text: sql.fragment`(case when jsonb_typeof(${json}) = 'string' then ${json} #>> '{}' end)`,
    number: sql.fragment`(case when jsonb_typeof(${json}) = 'number' then (${json} #>> '{}')::numeric end)`,
    present: sql.fragment`(jsonb_typeof(${json}) is not null and jsonb_typeof(${json}) <> 'null')`,
  };
}

function textTarget(column: Fragment): Target {
  // An empty string on a contact field counts as absent, as a cleared form field would.
  return { json: null, number: null, text: column, present: sql.fragment`coalesce(${column}, '') <> ''` };
}

/**
 * The SQL twin of foldCase: A–Z only, whatever the database's locale. Under the "C" collation
 * lower() folds ASCII letters alone, byte by byte; translate() with the 26 letters did the same
 * seven times slower (a preview walking a million contacts: 15 µs a row, of a 2 µs scan).
 */
function fold(text: Fragment): Fragment {
  return sql.fragment`lower(${text} collate "C")`;
}

function likePattern(value: string, prefix: string, suffix: string): string {
  return prefix + foldCase(value).replace(/[\\%_]/g, '\\$&') + suffix;
}

/** A timestamp from an ISO 8601 string, null for anything else; UTC when it has no offset. */
function instantOf(text: Fragment): Fragment {
  // The pattern spares the function call (and its exception block) for values that are no date.
  return sql.fragment`(case when ${text} ~ ${ISO_INSTANT_PATTERN} then switchboard_parse_instant(${text}) end)`;
}

function equals(target: Target, value: Scalar): Fragment {
  if (typeof value === 'string') return sql.fragment`${fold(target.text)} = ${foldCase(value)}`;
  if (typeof value === 'number' && target.number)
    return sql.fragment`${target.number} = ${String(value)}::numeric`;
  if (target.json) return sql.fragment`${target.json} = ${sql.jsonb(value)}`;
  return sql.fragment`false`;
}

function inList(target: Target, values: Scalar[]): Fragment {
  const strings = values.filter((value): value is string => typeof value === 'string');
  const numbers = values.filter((value) => typeof value === 'number').map(String);
  const others = values.filter((value) => typeof value === 'boolean');
  const parts: Fragment[] = [];
  if (strings.length) {
    parts.push(sql.fragment`${fold(target.text)} = any(${sql.array(strings.map(foldCase), 'text')})`);
  }
  if (numbers.length && target.number)
    parts.push(sql.fragment`${target.number} = any(${sql.array(numbers, 'numeric')})`);
  for (const value of others) parts.push(equals(target, value));
  return parts.length ? (sql.or(parts) as Fragment) : sql.fragment`false`;
}

function contains(target: Target, value: string): Fragment {
  const inText = sql.fragment`${fold(target.text)} like ${likePattern(value, '%', '%')}`;
  if (!target.json) return inText;
  // On a JSON array, contains means "has an element equal to the value" (tags contains "vip").
  const element = jsonTarget(sql.fragment`element.value`);
  return sql.fragment`(${inText} or (jsonb_typeof(${target.json}) = 'array' and exists (
    select 1 from jsonb_array_elements(${target.json}) as element where ${equals(element, value)})))`;
}

function ordered(target: Target, op: 'gt' | 'gte' | 'lt' | 'lte', value: Scalar): Fragment {
  if (typeof value === 'number' && target.number) {
    return sql.fragment`${target.number} ${ORDER_SQL[op]} ${String(value)}::numeric`;
  }
  const instant = typeof value === 'string' ? parseInstant(value) : null;
  if (instant === null) return sql.fragment`false`;
  return sql.fragment`${instantOf(target.text)} ${ORDER_SQL[op]} ${new Date(instant).toISOString()}::timestamptz`;
}

function positive(target: Target, op: Op, value: unknown): Fragment {
  switch (op) {
    case 'eq':
      return equals(target, value as Scalar);
    case 'exists':
      return target.present;
    case 'contains':
      return contains(target, value as string);
    case 'starts_with':
      return sql.fragment`${fold(target.text)} like ${likePattern(value as string, '', '%')}`;
    case 'ends_with':
      return sql.fragment`${fold(target.text)} like ${likePattern(value as string, '%', '')}`;
    case 'in':
      return inList(target, value as Scalar[]);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return ordered(target, op, value as Scalar);
    default:
      throw new Error(`operator ${op} has no positive form`);
  }
}

function condition(target: Target, op: Op, value: unknown): Fragment {
  const negated = NEGATIONS[op];
  const holds = sql.fragment`coalesce((${positive(target, negated ?? op, value)}), false)`;
  return negated ? sql.fragment`(not ${holds})` : holds;
}

function jsonAt(column: Fragment, path: string): Fragment {
  return sql.fragment`(${column} #> ${sql.array(path.split('.'), 'text')})`;
}

/** `where` conditions over an events row's metadata; the row is aliased `alias`. */
export function compileMetadataConditions(where: readonly MetadataCondition[], alias: string): Fragment {
  const metadata = sql.fragment`${sql.identifier([alias, 'metadata'])}`;
  const parts = where.map((item) => condition(jsonTarget(jsonAt(metadata, item.path)), item.op, item.value));
  return parts.length ? (sql.and(parts) as Fragment) : sql.fragment`true`;
}

const FIELD_COLUMNS: Record<Exclude<ContactField, 'createdAt'>, Fragment> = {
  email: sql.fragment`c.email`,
  firstName: sql.fragment`c.first_name`,
  lastName: sql.fragment`c.last_name`,
  phone: sql.fragment`c.phone`,
};

function createdAtCondition(op: Op, value: string): Fragment {
  // Timestamps leave the API with millisecond precision, so eq compares at that precision too.
  const at = new Date(parseInstant(value)!).toISOString();
  const column = sql.fragment`date_trunc('milliseconds', c.created_at)`;
  if (op === 'eq' || op === 'neq')
    return sql.fragment`(${column} ${op === 'eq' ? sql.fragment`=` : sql.fragment`<>`} ${at}::timestamptz)`;
  return sql.fragment`(${column} ${ORDER_SQL[op as keyof typeof ORDER_SQL]} ${at}::timestamptz)`;
}

function bounds(value: Fragment, comparison: Comparison): Fragment {
  const entries = Object.entries(comparison) as [keyof Comparison, number][];
  return sql.and(
    entries.map(([key, bound]) => sql.fragment`${value} ${BOUND_SQL[key]} ${bound}`),
  ) as Fragment;
}

/**
 * The events of one type of the contact `c`, for a query over `events e`. The type is compared as
 * part of the row `(contact_id, type)`, which only events_contact_type_time_idx (sql/0031) can
 * match, never as `e.type = …`: with that, the (workspace, type, time) index served the type too,
 * and where the statistics predate the type (a new event type, a freshly loaded workspace or month)
 * both indexes looked like one row away and the planner took the smaller, reading every event of
 * the type in the workspace for each contact (a 1,000-event batch's segment diff: 0.17 s → 2.3 s).
 * Now that index can only offer the whole workspace. The equalities stay: they give the planner its
 * estimates and end the scan at the contact's last event; the workspace test keeps a distributed
 * database's lookup on the contact's shard.
 */
export function contactEventsOfType(type: string): Fragment {
  return sql.fragment`e.workspace_id = c.workspace_id and e.contact_id = c.id
    and (e.contact_id, e.type) >= (c.id, ${type}::text) and (e.contact_id, e.type) <= (c.id, ${type}::text)`;
}

/** The events an event condition counts, for a query over `events e` of the contact `c`. */
function eventFilters(event: EventCondition): Fragment {
  const seconds = event.within ? durationSeconds(event.within) : null;
  // No event is stored with a time ahead of its request (60 s of clock skew at most), so the upper
  // bound changes no answer: it spares each lookup the empty partitions of the months ahead.
  return sql.fragment`${contactEventsOfType(event.event)}
    and e.occurred_at < now() + interval '1 day'
    ${seconds ? sql.fragment`and e.occurred_at >= now() - make_interval(secs => ${seconds})` : sql.fragment``}
    and ${compileMetadataConditions(event.where ?? [], 'e')}`;
}

/** How many events of the contact `c` an event condition counts, stopping at `cap`. */
export function countConditionEvents(event: EventCondition, cap: number): Fragment {
  return sql.fragment`(select count(*)::int from (select 1 from events e where ${eventFilters(event)} limit ${cap}) as hits)`;
}

function eventCondition(event: EventCondition): Fragment {
  const filters = eventFilters(event);
  const count = event.count ?? { gte: 1 };
  // Always a capped count, never EXISTS: the planner may turn an EXISTS into a hashed subplan that
  // reads every event of the type in the table, which it does when its statistics predate the
  // type (a new event type, a freshly loaded workspace) and take it for a handful of rows. A count
  // over a LIMIT stays a lookup of the contact's own events. Counting stops one past the largest
  // bound: enough to decide every comparison (one row, for "at least once").
  const cap = Math.max(...Object.values(count)) + 1;
  return sql.fragment`(select ${bounds(sql.fragment`counted.n`, count)} from (select count(*) as n
    from (select 1 from events e where ${filters} limit ${cap}) as hits) as counted)`;
}

function compileNode(rule: Rule): Fragment {
  if ('all' in rule) return sql.fragment`(${sql.and(rule.all.map((child) => compileNode(child)))})`;
  if ('any' in rule) return sql.fragment`(${sql.or(rule.any.map((child) => compileNode(child)))})`;
  if ('not' in rule) return sql.fragment`(not ${compileNode(rule.not)})`;
  if ('leadScore' in rule) return sql.fragment`(${bounds(sql.fragment`c.lead_score`, rule.leadScore)})`;
  if ('event' in rule) return sql.fragment`coalesce(${eventCondition(rule)}, false)`;
  if ('attribute' in rule) {
    return condition(jsonTarget(jsonAt(sql.fragment`c.attributes`, rule.attribute)), rule.op, rule.value);
  }
  if (rule.field === 'createdAt') return createdAtCondition(rule.op, rule.value as string);
  return condition(textTarget(FIELD_COLUMNS[rule.field]), rule.op, rule.value);
}

const compiled = new WeakMap<Rule, Fragment>();

/**
 * A boolean SQL expression over a contacts row aliased `c`. Remembered per rules object: ingest
 * keeps each workspace's definitions cached, so a segment is compiled once per definitions version.
 */
export function compileSegmentRules(rule: Rule): Fragment {
  let fragment = compiled.get(rule);
  if (!fragment) {
    fragment = compileNode(rule);
    compiled.set(rule, fragment);
  }
  return fragment;
}

/**
 * Sets of contact ids the rule's matches must all belong to, each read from the events alone: an
 * event condition that needs at least one event is met only by contacts with such events, found
 * through the (workspace, type, time) index and counted per contact, instead of one lookup per
 * contact of the workspace. `all` takes every such set of its entries, `any` the union when each
 * of its entries has one, `not` none. Empty: the rule must be evaluated for every contact. Used
 * where a rule is evaluated over a whole workspace at once (the builder's preview); the rule itself
 * still decides, so the sets only have to hold every match.
 */
export function eventCandidateSets(rule: Rule, workspaceId: string): Fragment[] {
  if ('all' in rule) return rule.all.flatMap((child) => eventCandidateSets(child, workspaceId));
  if ('any' in rule) {
    const sets = rule.any.map((child) => eventCandidateSets(child, workspaceId));
    if (sets.some((set) => set.length === 0)) return [];
    return [sets.map((set) => set[0]!).reduce((union, set) => sql.fragment`${union} union ${set}`)];
  }
  if (!('event' in rule)) return [];
  const count = rule.count ?? { gte: 1 };
  const least = Math.max(count.gte ?? 0, count.gt === undefined ? 0 : count.gt + 1, count.eq ?? 0);
  if (least < 1) return [];
  const seconds = rule.within ? durationSeconds(rule.within) : null;
  return [
    sql.fragment`select e.contact_id from events e
      where e.workspace_id = ${workspaceId} and e.type = ${rule.event} and e.contact_id is not null
        and e.occurred_at < now() + interval '1 day'
        ${seconds ? sql.fragment`and e.occurred_at >= now() - make_interval(secs => ${seconds})` : sql.fragment``}
        and ${compileMetadataConditions(rule.where ?? [], 'e')}
      group by e.contact_id having count(*) >= ${least}`,
  ];
}
