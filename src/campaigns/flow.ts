// A campaign's step tree and its step keys. A key is the step's path in the tree: "2" is the third
// top-level step, "3.then.0" the first step of the `then` of branch 3, "4.paths.1.0" the first step
// of split 4's second path. Keys are stable while the steps are (only drafts' steps change), and
// name a step in messages, reports and previews.
import type { CampaignStep } from './schemas.ts';

/** A step at any depth (each level's steps are a subset of the top level's). */
export type Step = CampaignStep;

/** Where every enrollment starts. */
export const FIRST_STEP = '0';

type Level = { steps: Step[]; key: string };

/** The key of the step at `index` in the list whose own key (the container path) is `prefix`. */
const keyOf = (prefix: string, index: number) => (prefix ? `${prefix}.${index}` : String(index));

/** The list a container path designates: "" the top level, "3.then", "4.paths.1". */
function listAt(steps: Step[], path: string[]): Step[] | undefined {
  let list: Step[] | undefined = steps;
  let i = 0;
  while (list && i < path.length) {
    const step: Step | undefined = list[Number(path[i])];
    const branch = path[i + 1];
    if (step?.type === 'split' && branch === 'paths') {
      list = step.paths[Number(path[i + 2])]?.steps;
      i += 3;
    } else if (step?.type === 'branch' && (branch === 'then' || branch === 'else')) {
      list = step[branch];
      i += 2;
    } else return undefined;
  }
  return list;
}

function parse(key: string): { container: string[]; index: number } | undefined {
  const parts = key.split('.');
  const index = Number(parts.at(-1));
  if (!Number.isInteger(index) || index < 0) return undefined;
  return { container: parts.slice(0, -1), index };
}

/** The step a key names, or undefined. */
export function stepAt(steps: Step[], key: string): Step | undefined {
  const parsed = parse(key);
  if (!parsed) return undefined;
  return listAt(steps, parsed.container)?.[parsed.index];
}

/** The first step of a nested list, if the list has one. */
export function firstIn(prefix: string, list: readonly unknown[] | undefined): string | undefined {
  return list && list.length > 0 ? keyOf(prefix, 0) : undefined;
}

/**
 * The step after `key` in flow order: its next sibling, else the step after the branch or split
 * that holds it, and so on up; null at the end of the flow.
 */
export function nextStepKey(steps: Step[], key: string): string | null {
  const parsed = parse(key);
  if (!parsed) return null;
  const list = listAt(steps, parsed.container);
  const prefix = parsed.container.join('.');
  if (list && parsed.index + 1 < list.length) return keyOf(prefix, parsed.index + 1);
  if (parsed.container.length === 0) return null;
  // Leave the nested list: "3.then" → step "3", "4.paths.1" → step "4".
  const up =
    parsed.container.at(-2) === 'paths' ? parsed.container.slice(0, -2) : parsed.container.slice(0, -1);
  return nextStepKey(steps, up.join('.'));
}

/** Every step with its key, in flow order (the report lists them so). */
export function allSteps(steps: Step[]): { key: string; step: Step }[] {
  const out: { key: string; step: Step }[] = [];
  const visit = ({ steps: list, key: prefix }: Level) => {
    list.forEach((step, index) => {
      const key = keyOf(prefix, index);
      out.push({ key, step });
      if (step.type === 'branch') {
        visit({ steps: step.then, key: `${key}.then` });
        visit({ steps: step.else, key: `${key}.else` });
      }
      if (step.type === 'split') {
        for (const [p, path] of step.paths.entries()) visit({ steps: path.steps, key: `${key}.paths.${p}` });
      }
    });
  };
  visit({ steps, key: '' });
  return out;
}

/** Draws a split path by weight; `random` in [0, 1). */
export function drawPath(weights: readonly number[], random = Math.random()): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let threshold = random * total;
  for (const [index, weight] of weights.entries()) {
    threshold -= weight;
    if (threshold < 0) return index;
  }
  return weights.length - 1;
}
