// What a rule tree may cost. Each event condition is a subquery over the contact's events, and each
// `where` clause runs for every event it reads: a member could otherwise save a segment that holds a
// database connection for minutes per evaluation. The limits are configuration, read when a rule is
// validated: the composition hands them over at start-up (useRuleCostLimits), the defaults until then.
import { type Config, parseConfig } from '../config.ts';
import type { Rule } from './conditionSchemas.ts';

export type RuleCostLimits = { depth: number; conditions: number; eventConditions: number; where: number };

let installed: RuleCostLimits | undefined;

/** The limits the rule schema checks from now on (the last configuration handed over holds). */
export function useRuleCostLimits(settings: Config): void {
  installed = limitsOf(settings);
}

export function ruleCostLimits(): RuleCostLimits {
  installed ??= limitsOf(parseConfig({}));
  return installed;
}

function limitsOf(settings: Config): RuleCostLimits {
  return {
    depth: settings.SEGMENT_RULE_MAX_DEPTH,
    conditions: settings.SEGMENT_RULE_MAX_CONDITIONS,
    eventConditions: settings.SEGMENT_RULE_MAX_EVENT_CONDITIONS,
    where: settings.SEGMENT_RULE_MAX_WHERE,
  };
}

type RuleCost = { conditions: number; eventConditions: number; where: number };

function add(a: RuleCost, b: RuleCost): RuleCost {
  return {
    conditions: a.conditions + b.conditions,
    eventConditions: a.eventConditions + b.eventConditions,
    where: a.where + b.where,
  };
}

const NONE: RuleCost = { conditions: 0, eventConditions: 0, where: 0 };

export function ruleCost(rule: Rule): RuleCost {
  if ('all' in rule) return rule.all.map(ruleCost).reduce(add, NONE);
  if ('any' in rule) return rule.any.map(ruleCost).reduce(add, NONE);
  if ('not' in rule) return ruleCost(rule.not);
  if ('event' in rule) return { conditions: 1, eventConditions: 1, where: rule.where?.length ?? 0 };
  return { conditions: 1, eventConditions: 0, where: 0 };
}

/** One message per limit the tree exceeds, each naming the limit and the tree's own figure. */
export function ruleCostProblems(rule: Rule, limits = ruleCostLimits()): string[] {
  const cost = ruleCost(rule);
  const problems: string[] = [];
  if (cost.conditions > limits.conditions) {
    problems.push(`holds ${cost.conditions} conditions; at most ${limits.conditions} are allowed`);
  }
  if (cost.eventConditions > limits.eventConditions) {
    problems.push(
      `holds ${cost.eventConditions} event conditions; at most ${limits.eventConditions} are allowed`,
    );
  }
  if (cost.where > limits.where) {
    problems.push(
      `holds ${cost.where} \`where\` clauses across its event conditions; at most ${limits.where} are allowed`,
    );
  }
  return problems;
}
