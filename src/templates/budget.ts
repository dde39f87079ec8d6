// The budget of the one render in progress: its deadline and the work it has done.
//
// liquidjs checks its time limit only between tags, so one filter chain (`a | where: "x" | where: …`
// over a 650,000-item array) or one comparison could hold the process for seconds past it. The
// guards (guards.ts) consult this budget inside every filter and operator call instead: the
// deadline before and after each call, and the work the call is about to do against a fixed budget
// counted in units, so no single call can run long either.
//
// A render is synchronous and never re-entered, so the budget of the render in progress is held
// here rather than threaded through liquidjs' context.

/** Most work units one render may do (see sizeOf and guards.ts for what a unit is). */
export const WORK_LIMIT = 1_000_000;

export const RENDER_LIMIT_MESSAGE = 'template render limit exceeded';
export const WORK_LIMIT_MESSAGE = 'template work limit exceeded';

/** A render over its budget; liquidjs wraps it with the position of the tag or filter at fault. */
export class BudgetError extends Error {
  override name = 'BudgetError';
}

type Budget = { deadline: number; work: number };

let active: Budget | undefined;

/** Runs `render` under a fresh budget; returns its result and the work it counted (also on failure). */
export function withBudget<T>(
  limitMs: number,
  render: () => T,
): { result?: T; error?: unknown; work: number } {
  const budget: Budget = { deadline: performance.now() + limitMs, work: 0 };
  const outer = active;
  active = budget;
  try {
    return { result: render(), work: budget.work };
  } catch (error) {
    return { error, work: budget.work };
  } finally {
    active = outer;
  }
}

/** Throws when the render in progress is past its deadline. */
export function checkDeadline(): void {
  if (active && performance.now() > active.deadline) throw new BudgetError(RENDER_LIMIT_MESSAGE);
}

/** Counts `units` of work against the render in progress; throws before the budget is exceeded. */
export function chargeWork(units: number): void {
  if (!active) return;
  const work = active.work + units;
  if (!(work <= WORK_LIMIT))
    throw new BudgetError(`${WORK_LIMIT_MESSAGE} (${WORK_LIMIT.toLocaleString('en')} units)`);
  active.work = work;
}

// Sizes of arrays and objects already measured. Values do not change once a template sees them
// (filters return new arrays), and a value built by a template is measured when it is made, so
// measuring is linear in what the render builds.
const sizes = new WeakMap<object, number>();

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A value's size as if nothing in it were shared: 1 for a scalar, a string's length, 1 + the sizes
 * of an array's items or a plain object's values. Arrays built by a template can hold the same
 * array or string many times over (`push` doubles a nesting level for one unit of memory), and
 * comparing or printing them walks every copy: measured this way, any walk over a value costs at
 * most its size. Stops counting past `cap` (the result is then above `cap`).
 */
export function sizeOf(value: unknown, cap = WORK_LIMIT): number {
  if (typeof value === 'string') return Math.max(1, value.length);
  if (value === null || typeof value !== 'object') return 1;
  const known = sizes.get(value);
  if (known !== undefined) return known;
  if (!Array.isArray(value) && !isPlainObject(value)) return 1;
  sizes.set(value, 1); // a cycle (none can be written in Liquid) counts once
  let size = 1;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    size += sizeOf(item, cap - size);
    if (size > cap) {
      sizes.delete(value); // a partial count is not the size
      return size;
    }
  }
  sizes.set(value, size);
  return size;
}
