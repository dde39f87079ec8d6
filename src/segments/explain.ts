// Why a contact is in a segment or not: every condition of the rule, with what it read for this
// contact (the attribute or field value, the number of events counted, the lead score) and whether
// it holds, the all / any / not tree kept as it is written. Each condition's verdict comes from the
// SQL that decides membership (compile.ts), run for this one contact, so the explanation can never
// tell a different story from the segment itself; what it read is shown beside it.
import { type ContactRow, getContact } from '../contacts/index.ts';
import type { Db } from '../db/pool.ts';
import type { EventCondition, Rule } from './conditionSchemas.ts';
import { describeRule } from './describe.ts';
import { valueAt } from './match.ts';
import { evaluateConditions, findMembership } from './queries.ts';
import { getSegment } from './service.ts';

/** Events are counted up to this many for an explanation: past it, "at least" this many. */
export const EXPLAIN_EVENT_CAP = 10_000;

type Leaf = Exclude<Rule, { all: Rule[] } | { any: Rule[] } | { not: Rule }>;

export type ExplainedNode =
  | { kind: 'all' | 'any' | 'not'; passed: boolean; children: ExplainedNode[] }
  | {
      kind: 'condition';
      passed: boolean;
      condition: Leaf;
      description: string;
      seen: unknown;
      seenCapped: boolean;
    };

function leavesOf(rule: Rule): Leaf[] {
  if ('all' in rule) return rule.all.flatMap(leavesOf);
  if ('any' in rule) return rule.any.flatMap(leavesOf);
  if ('not' in rule) return leavesOf(rule.not);
  return [rule];
}

const FIELD_VALUES = {
  email: (row: ContactRow) => row.email,
  firstName: (row: ContactRow) => row.first_name,
  lastName: (row: ContactRow) => row.last_name,
  phone: (row: ContactRow) => row.phone,
  createdAt: (row: ContactRow) => row.created_at,
};

/** What a condition read from the contact; event counts come from the database. */
function seenBy(leaf: Leaf, contact: ContactRow, count: number | null): unknown {
  if ('leadScore' in leaf) return contact.lead_score;
  if ('event' in leaf) return count;
  if ('attribute' in leaf) return valueAt(contact.attributes, leaf.attribute) ?? null;
  return FIELD_VALUES[leaf.field](contact);
}

type Verdicts = { passed: boolean[]; counts: (number | null)[] };

function build(rule: Rule, contact: ContactRow, verdicts: Verdicts, next: { index: number }): ExplainedNode {
  const children = (rules: Rule[]) => rules.map((child) => build(child, contact, verdicts, next));
  if ('all' in rule) {
    const nodes = children(rule.all);
    return { kind: 'all', passed: nodes.every((child) => child.passed), children: nodes };
  }
  if ('any' in rule) {
    const nodes = children(rule.any);
    return { kind: 'any', passed: nodes.some((child) => child.passed), children: nodes };
  }
  if ('not' in rule) {
    const nodes = children([rule.not]);
    return { kind: 'not', passed: !nodes[0]!.passed, children: nodes };
  }
  const index = next.index++;
  const count = verdicts.counts[index] ?? null;
  return {
    kind: 'condition',
    passed: verdicts.passed[index]!,
    condition: rule,
    description: describeRule(rule),
    seen: seenBy(rule, contact, count),
    seenCapped: count !== null && count >= EXPLAIN_EVENT_CAP,
  };
}

function refreshNote(status: string, agrees: boolean, timeWindow: boolean): string | null {
  if (status === 'computing') {
    return 'The segment is being computed after a change of its rules; membership is final once it is ready.';
  }
  if (agrees) return null;
  return timeWindow
    ? 'An event has left a time window since the last refresh; the next scheduled refresh moves this contact.'
    : 'A change to this contact is being applied; membership follows within moments.';
}

export async function explainMembership(db: Db, workspaceId: string, contactId: string, segmentId: string) {
  const contact = await getContact(db, workspaceId, contactId);
  const segment = await getSegment(db, workspaceId, segmentId);
  const leaves = leavesOf(segment.rules);
  const events = leaves.map((leaf) => ('event' in leaf ? (leaf as EventCondition) : null));
  const [verdicts, membership] = await Promise.all([
    evaluateConditions(db, workspaceId, contact.id, segment.rules, leaves, events, EXPLAIN_EVENT_CAP),
    findMembership(db, workspaceId, segment.id, contact.id),
  ]);
  const explanation = build(segment.rules, contact, verdicts, { index: 0 });
  const member = membership !== null;
  const agrees = member === verdicts.matches;
  const timeWindow = events.some((event) => event?.within !== undefined);
  return {
    segmentId: segment.id,
    contactId: contact.id,
    matches: verdicts.matches,
    member,
    enteredAt: membership?.entered_at ?? null,
    agrees,
    refreshPending: !agrees || segment.status === 'computing',
    note: refreshNote(segment.status, agrees, timeWindow),
    status: segment.status,
    rule: describeRule(segment.rules),
    explanation,
    evaluatedAt: verdicts.now,
  };
}
