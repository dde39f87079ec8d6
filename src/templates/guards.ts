// Every filter, operator and `capture` of an engine, wrapped to keep to the render's budget
// (budget.ts): the deadline is checked before and after each call, and the call's work is counted
// before it runs, so a chain of filters in one tag stops at the time limit and no single call can
// run long by itself.
//
// A call's work, in units of sizeOf: what it reads (its input and arguments), what it returns (as if
// copied), plus
// - for sorts, the input again for every halving (n log n comparisons, each as long as the values);
// - for filters that evaluate an expression or a property per item (`where`, `map`, `group_by` …),
//   EVALUATION_UNITS per item: liquidjs evaluates each through its generic token machinery, about
//   ten times slower than a native copy.
// Comparisons (`==`, `contains` …) count the smaller side (the larger for `contains`): comparing
// arrays walks them.
import { CaptureTag, type Context, defaultOperators, type Liquid } from 'liquidjs';
import { chargeWork, checkDeadline, sizeOf } from './budget.ts';

type Operator = (typeof defaultOperators)[string];
type FilterHandler = (this: unknown, value: unknown, ...args: unknown[]) => unknown;

const EVALUATION_UNITS = 50;
const SORTS = new Set(['sort', 'sort_natural']);
const EVALUATES_PER_ITEM = new Set([
  'where',
  'reject',
  'where_exp',
  'reject_exp',
  'group_by',
  'group_by_exp',
  'find',
  'find_exp',
  'find_index',
  'find_index_exp',
  'has',
  'has_exp',
  'map',
  'sum',
]);

function itemCount(value: unknown): number {
  return Array.isArray(value) ? value.length : 1;
}

/** The work a filter call will do before it returns, from its input and arguments. */
function workBefore(name: string, value: unknown, args: unknown[]): number {
  let read = sizeOf(value);
  for (const arg of args) read += sizeOf(arg);
  if (SORTS.has(name)) return read * Math.max(1, Math.ceil(Math.log2(itemCount(value) + 1)));
  if (EVALUATES_PER_ITEM.has(name)) return read + EVALUATION_UNITS * itemCount(value);
  return read;
}

function guardFilter(name: string, handler: FilterHandler): FilterHandler {
  return function* guarded(this: unknown, value: unknown, ...args: unknown[]) {
    checkDeadline();
    chargeWork(workBefore(name, value, args));
    const result: unknown = yield handler.apply(this, [value, ...args]);
    chargeWork(sizeOf(result));
    checkDeadline();
    return result;
  };
}

/** Wraps every filter the engine has (liquidjs' own included) in the budget's checks. */
export function guardFilters(engine: Liquid): void {
  for (const [name, implementation] of Object.entries(engine.filters)) {
    if (typeof implementation === 'function') {
      engine.registerFilter(name, guardFilter(name, implementation as FilterHandler));
    } else if (implementation?.handler) {
      const handler = guardFilter(name, implementation.handler as FilterHandler);
      engine.registerFilter(name, { ...implementation, handler });
    }
  }
}

function guardOperator(name: string, operator: Operator): Operator {
  const charge =
    name === 'contains'
      ? (left: unknown, right: unknown) => sizeOf(left) + sizeOf(right)
      : name === 'and' || name === 'or' || name === 'not'
        ? () => 0 // truth tests: constant work
        : (left: unknown, right: unknown) => Math.min(sizeOf(left), sizeOf(right));
  return function* guarded(this: unknown, ...args: unknown[]): Generator<unknown, unknown, unknown> {
    checkDeadline();
    chargeWork(charge(args[0], args[1]));
    return yield (operator as (...args: unknown[]) => unknown).apply(this, args);
  } as Operator;
}

/** liquidjs' operators, each wrapped in the budget's checks (for the `operators` option). */
export function guardedOperators(): Record<string, Operator> {
  return Object.fromEntries(
    Object.entries(defaultOperators).map(([name, operator]) => [name, guardOperator(name, operator)]),
  );
}

/** `capture` builds a string no filter has seen (a loop's output): it counts as made. */
class GuardedCaptureTag extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    yield* super.render(ctx);
    chargeWork(sizeOf(ctx.bottom()[this.variable as keyof object]));
    checkDeadline();
  }
}

export function guardCapture(engine: Liquid): void {
  engine.registerTag('capture', GuardedCaptureTag as never);
}
