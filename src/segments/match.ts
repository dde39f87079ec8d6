// Metadata conditions in plain JavaScript, for the event in hand (scoring rules, campaign
// triggers). The semantics are exactly those of the SQL in compile.ts: strings compare without
// regard to the case of A–Z, numbers only with numbers, dates only as ISO 8601 strings, and a missing value
// matches no positive operator (so it matches every negative one).
import { parseInstant } from './instant.ts';
import type { MetadataCondition, Op, Scalar } from './ruleSchemas.ts';

/** The value at a dot path, walking objects by key and arrays by index (negative from the end). */
export function valueAt(document: unknown, path: string): unknown {
  let current: unknown = document;
  for (const key of path.split('.')) {
    if (Array.isArray(current)) {
      if (!/^-?\d+$/.test(key)) return undefined;
      const index = Number(key);
      current = current[index < 0 ? current.length + index : index];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return current;
}

/**
 * Case folding of A–Z only. PostgreSQL's lower() follows the database's locale (a C-locale
 * database leaves Ö alone); folding ASCII letters alone gives the same answer in SQL and here on
 * every deployment.
 */
export function foldCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

const folded = (value: unknown) => (typeof value === 'string' ? foldCase(value) : null);

function equals(actual: unknown, expected: Scalar): boolean {
  if (typeof expected === 'string') return folded(actual) === foldCase(expected);
  return actual === expected;
}

function contains(actual: unknown, expected: string): boolean {
  const text = folded(actual);
  if (text !== null) return text.includes(foldCase(expected));
  return Array.isArray(actual) && actual.some((element) => equals(element, expected));
}

function ordered(actual: unknown, op: 'gt' | 'gte' | 'lt' | 'lte', expected: Scalar): boolean {
  let left: number | null = null;
  let right: number | null = null;
  if (typeof expected === 'number') {
    left = typeof actual === 'number' ? actual : null;
    right = expected;
  } else if (typeof expected === 'string') {
    left = typeof actual === 'string' ? parseInstant(actual) : null;
    right = parseInstant(expected);
  }
  if (left === null || right === null) return false;
  if (op === 'gt') return left > right;
  if (op === 'gte') return left >= right;
  if (op === 'lt') return left < right;
  return left <= right;
}

function holds(actual: unknown, op: Op, value: unknown): boolean {
  switch (op) {
    case 'eq':
      return equals(actual, value as Scalar);
    case 'neq':
      return !equals(actual, value as Scalar);
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'not_exists':
      return actual === undefined || actual === null;
    case 'contains':
      return contains(actual, value as string);
    case 'not_contains':
      return !contains(actual, value as string);
    case 'starts_with':
      return folded(actual)?.startsWith(foldCase(value as string)) ?? false;
    case 'ends_with':
      return folded(actual)?.endsWith(foldCase(value as string)) ?? false;
    case 'in':
      return (value as Scalar[]).some((item) => equals(actual, item));
    case 'not_in':
      return !(value as Scalar[]).some((item) => equals(actual, item));
    default:
      return ordered(actual, op, value as Scalar);
  }
}

/** True when every condition holds for this metadata (an empty list always holds). */
export function matchesMetadataConditions(
  where: readonly MetadataCondition[] | null | undefined,
  metadata: Record<string, unknown>,
): boolean {
  return (where ?? []).every((condition) =>
    holds(valueAt(metadata, condition.path), condition.op, condition.value),
  );
}
