// Turning zod issues into the `errors: [{path, message}]` list of a validation problem, and the
// small schemas that many routes share (ids, pages, booleans in query strings, timestamps).
import { z } from 'zod';
import type { FieldError } from '../core/errors.ts';
import './plainMessages.ts';
import '../core/zodOpenApi.ts';

export function zodIssuesToFieldErrors(issues: readonly z.core.$ZodIssue[], location: string): FieldError[] {
  // One message per field: a value that is not a timestamp need not also hear it is before year 1.
  const seen = new Set<string>();
  return issues
    .flatMap((issue) => fieldErrors(issue, issue.path, location))
    .filter((error) => !seen.has(error.path) && seen.add(error.path));
}

/**
 * A query string with its empty values left out: `?type=` and `?page=` both mean "not given", as
 * an emptied form field would, on every route alike.
 */
export function withoutEmptyValues(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''));
}

function fieldErrors(issue: z.core.$ZodIssue, path: readonly PropertyKey[], location: string): FieldError[] {
  // zod reports a strict object's unknown keys as one issue on the object; a path naming each key
  // tells the client which field to remove.
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => fieldError([...path, key], 'is not a known field', location));
  }
  // A union that no branch accepted says only "Invalid input"; when the value has the type of
  // exactly one branch (an object for `schema | null`), that branch's issues say what is wrong.
  const branch = issue.code === 'invalid_union' ? typedBranch(issue.errors) : null;
  if (branch) return branch.flatMap((inner) => fieldErrors(inner, [...path, ...inner.path], location));
  return [fieldError(path, issue.message, location)];
}

function fieldError(path: readonly PropertyKey[], message: string, location: string): FieldError {
  return { path: [location, ...path.map(String)].join('.'), message };
}

/** The issues of the one union branch that got past its type check, if exactly one did. */
function typedBranch(branches: readonly (readonly z.core.$ZodIssue[])[]) {
  const wrongType = (issues: readonly z.core.$ZodIssue[]) =>
    issues.every((issue) => issue.code === 'invalid_type' && issue.path.length === 0);
  const typed = branches.filter((issues) => !wrongType(issues));
  return typed.length === 1 ? typed[0] : null;
}

/** An ISO 8601 UTC timestamp with milliseconds, as every timestamp leaves the service. */
export { Timestamp } from '../core/timestamp.ts';

/**
 * `schema | null` for a schema registered as an OpenAPI component. zod-to-openapi renders
 * `.nullable()` on a registered schema wrongly for 3.1 (an object component itself becomes
 * nullable; an array one becomes an `allOf` that rejects null), so say it as a union instead:
 * `anyOf: [{$ref}, {type: "null"}]`.
 */
export function nullableRef<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}

/**
 * The earliest instant an ISO 8601 timestamp can name that PostgreSQL's timestamptz also reads:
 * the start of year 1 (PostgreSQL refuses year 0000, and earlier years are written BC).
 */
export const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');

/** For `.refine` on timestamps that reach the database: not before EARLIEST_INSTANT. */
export const storableInstant = [
  (value: string) => Date.parse(value) >= EARLIEST_INSTANT,
  'must not be before the year 1',
] as const;

/** A query-string boolean: only `true` or `false`, nothing truthy-ish. */
export const QueryBoolean = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true')
  .openapi({ type: 'boolean' });

export const WorkspaceParams = z.object({
  workspaceId: z.string().openapi({ example: 'ws_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
});

/** page/limit query parameters with the given bounds; a limit above max is a 400. */
export function pageQuery(options: { defaultLimit: number; maxLimit: number }) {
  return {
    page: z.coerce.number().int().min(1).default(1).openapi({ description: 'Page number, from 1.' }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(options.maxLimit)
      .default(options.defaultLimit)
      .openapi({ description: `Page size (default ${options.defaultLimit}, maximum ${options.maxLimit}).` }),
  };
}

/** The envelope of paginated lists: `{data, page, limit, total}`. */
export function paginated<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
  });
}

export const NUL_MESSAGE = 'must not contain NUL characters (\\u0000)';

/** Why PostgreSQL cannot store this text (null when it can). */
function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  // A lone UTF-16 surrogate ("\ud800" in JSON) is no Unicode character: jsonb refuses it and text
  // would silently store U+FFFD instead.
  if (!text.isWellFormed()) return 'must not contain unpaired UTF-16 surrogates (such as \\ud800)';
  return null;
}

/**
 * The first string or key in a parsed value that PostgreSQL text and jsonb cannot store (a NUL
 * character or an unpaired surrogate), as a field error; null when there is none. Checked once for
 * every request so that no route answers 500 for it.
 */
export function findUnstorableText(value: unknown, path: string): FieldError | null {
  if (typeof value === 'string') {
    const message = unstorable(value);
    return message ? { path, message } : null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    const itemPath = `${path}.${key}`;
    const message = unstorable(key);
    if (message) return { path: itemPath, message };
    const found = findUnstorableText(item, itemPath);
    if (found) return found;
  }
  return null;
}

/**
 * A PATCH body that must change something: `{}` is a 400 "nothing to change" naming the fields,
 * the same on every route.
 */
export function requireAChange<T extends z.ZodObject>(schema: T) {
  const fields = Object.keys(schema.shape).join(', ');
  return schema.refine((body) => Object.keys(body as object).length > 0, {
    message: `nothing to change: send at least one of ${fields}`,
  });
}
