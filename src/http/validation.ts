// Turning zod issues into the `errors: [{path, message}]` list of a validation problem, and the
// small schemas that many routes share (ids, pages, booleans in query strings, timestamps).
import { z } from 'zod';
import type { FieldError } from './errors.ts';
import './zodOpenApi.ts';

export function zodIssuesToFieldErrors(issues: readonly z.core.$ZodIssue[], location: string): FieldError[] {
  return issues.map((issue) => {
    const path = issue.path.length ? issue.path.map(String).join('.') : '';
    return { path: path ? `${location}.${path}` : location, message: issue.message };
  });
}

/** An ISO 8601 UTC timestamp with milliseconds, as every timestamp leaves the service. */
export const Timestamp = z.iso
  .datetime({ offset: false, precision: 3 })
  .openapi({ format: 'date-time', example: '2026-11-22T17:28:00.123Z' });

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

/**
 * The path of the first string or key in a parsed value that contains a NUL character, which
 * PostgreSQL text and jsonb cannot store; null when there is none. Checked once for every request
 * so that no route answers 500 for it.
 */
export function findNulCharacter(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    const itemPath = `${path}.${key}`;
    if (key.includes('\u0000')) return itemPath;
    const found = findNulCharacter(item, itemPath);
    if (found) return found;
  }
  return null;
}
