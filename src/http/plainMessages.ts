// One voice for validation messages: zod's defaults ("Too big: expected number to be <=200",
// "Invalid input: expected string, received undefined") become short phrases that read after the
// field's path ("body.limit must be at most 200"). Messages a schema sets itself are kept; this
// only speaks where the schema says nothing.
import { z } from 'zod';

type RawIssue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  record: 'an object',
  null: 'null',
  date: 'a date',
};

const FORMAT_NAMES: Record<string, string> = {
  email: 'a valid email address',
  url: 'a valid URL',
  datetime: 'an ISO 8601 timestamp, e.g. 2026-11-22T17:28:00.123Z',
  date: 'an ISO 8601 date, e.g. 2026-11-22',
  duration: 'an ISO 8601 duration, e.g. P30D',
  uuid: 'a UUID',
};

function typeName(expected: string): string {
  return TYPE_NAMES[expected] ?? `a ${expected}`;
}

function quoted(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}

const sizeUnits: Record<string, string> = {
  string: 'characters',
  array: 'items',
  set: 'items',
  file: 'bytes',
};

function bound(issue: RawIssue & { origin: string; inclusive?: boolean }, limit: unknown, most: boolean) {
  const unit = sizeUnits[issue.origin];
  if (unit) {
    if (!most && Number(limit) === 1) return 'must not be empty';
    return `must be at ${most ? 'most' : 'least'} ${limit} ${unit}`;
  }
  if (issue.inclusive === false) return `must be ${most ? 'less' : 'greater'} than ${limit}`;
  return `must be at ${most ? 'most' : 'least'} ${limit}`;
}

function unionMessage(issue: Extract<RawIssue, { code: 'invalid_union' }>): string {
  if (issue.input === undefined) return 'is required';
  if ('options' in issue && Array.isArray(issue.options))
    return `must be one of: ${issue.options.map(quoted).join(', ')}`;
  // Every branch refused the value's type: name the types it may have.
  const expected = issue.errors.map((branch) =>
    branch.length === 1 && branch[0].code === 'invalid_type' && branch[0].path.length === 0
      ? typeName(branch[0].expected)
      : null,
  );
  if (expected.length > 0 && expected.every((name) => name !== null))
    return `must be ${[...new Set(expected)].join(' or ')}`;
  return 'does not match any of the accepted forms';
}

/** The plain message for a zod issue that carries no message of its own. */
export function plainMessage(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${typeName(issue.expected)}`;
    case 'too_big':
      return bound(issue, issue.maximum, true);
    case 'too_small':
      return bound(issue, issue.minimum, false);
    case 'invalid_format':
      if (issue.format === 'regex') return 'is not in the expected format';
      if (issue.format === 'starts_with' && 'prefix' in issue)
        return `must start with ${quoted(issue.prefix)}`;
      return `must be ${FORMAT_NAMES[issue.format] ?? `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${quoted(issue.values[0])}`
        : `must be one of: ${issue.values.map(quoted).join(', ')}`;
    case 'invalid_union':
      return unionMessage(issue);
    case 'invalid_key':
      return 'is not an allowed key';
    case 'invalid_element':
      return 'holds an invalid element';
    case 'unrecognized_keys':
      return 'is not a known field';
    case 'custom':
      return 'is invalid';
    default:
      return undefined;
  }
}

// Global, so every parse speaks alike: request validation, nested rule checks, the CLI's options.
z.config({ customError: plainMessage });
