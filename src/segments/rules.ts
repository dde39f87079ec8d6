// The rule grammar shared by segments, scoring rules (`where`) and campaign triggers (`where`):
// its schemas, its SQL compiler, its JavaScript matcher, and what a rule tree depends on.

import type { Comparison } from './conditionSchemas.ts';
import { durationSeconds } from './duration.ts';
import type { Rule } from './ruleSchemas.ts';

export { compileMetadataConditions, compileSegmentRules, contactEventsOfType } from './compile.ts';
export { matchesMetadataConditions, valueAt } from './match.ts';
export {
  type MetadataCondition,
  MetadataConditions,
  OPS,
  type Op,
  RULE_LIMITS,
  type Rule,
  SegmentRules,
} from './ruleSchemas.ts';

/** Contact fields as ingest names them when they change; 'attributes' stands for any attribute. */
export type DependencyField = 'email' | 'firstName' | 'lastName' | 'phone' | 'createdAt' | 'attributes';

export type RuleDependencies = {
  eventTypes: string[];
  fields: DependencyField[];
  score: boolean;
  timeWindow: boolean;
};

/** What can change a rule's outcome, so ingest re-evaluates only the segments an event can move. */
export function ruleDependencies(rule: Rule): RuleDependencies {
  const eventTypes = new Set<string>();
  const fields = new Set<DependencyField>();
  let score = false;
  let timeWindow = false;
  const visit = (node: Rule): void => {
    if ('all' in node) node.all.forEach(visit);
    else if ('any' in node) node.any.forEach(visit);
    else if ('not' in node) visit(node.not);
    else if ('leadScore' in node) score = true;
    else if ('attribute' in node) fields.add('attributes');
    else if ('field' in node) fields.add(node.field);
    else {
      eventTypes.add(node.event);
      if (node.within) timeWindow = true;
    }
  };
  visit(rule);
  return { eventTypes: [...eventTypes].sort(), fields: [...fields].sort(), score, timeWindow };
}

/** Every `within` of a rule tree: the event type and how long its events count, in seconds. */
export function timeWindows(rule: Rule): { eventType: string; seconds: number }[] {
  if ('all' in rule) return rule.all.flatMap(timeWindows);
  if ('any' in rule) return rule.any.flatMap(timeWindows);
  if ('not' in rule) return timeWindows(rule.not);
  if ('event' in rule && rule.within)
    return [{ eventType: rule.event, seconds: durationSeconds(rule.within)! }];
  return [];
}

function holds(value: number, comparison: Comparison): boolean {
  const { gte, gt, lte, lt, eq } = comparison;
  return (
    (gte === undefined || value >= gte) &&
    (gt === undefined || value > gt) &&
    (lte === undefined || value <= lte) &&
    (lt === undefined || value < lt) &&
    (eq === undefined || value === eq)
  );
}

/**
 * Whether a lead score moving from `before` to `after` changes any `leadScore` condition of the
 * rule. When none changes, the rule's outcome is what it was with the old score, so a segment need
 * not be evaluated again for that move.
 */
export function scoreMoveMatters(rule: Rule, before: number, after: number): boolean {
  if ('all' in rule) return rule.all.some((child) => scoreMoveMatters(child, before, after));
  if ('any' in rule) return rule.any.some((child) => scoreMoveMatters(child, before, after));
  if ('not' in rule) return scoreMoveMatters(rule.not, before, after);
  if ('leadScore' in rule) return holds(before, rule.leadScore) !== holds(after, rule.leadScore);
  return false;
}
