// Keyset paging for console lists: the position after the last row shown travels in the link as an
// opaque cursor, so page 1,000 costs what page 1 costs (never OFFSET).
//
//   const after = readCursor(req.query.after, z.tuple([z.string(), z.string()]));  // null on page 1
//   const rows = await list(db, { after, limit: 50 + 1 });                         // one more: is there a next?
//   const { shown, next } = pageOf(rows, 50, (row) => [row.created_at, row.id]);
//   pager({ next: next && withQuery(req.originalUrl, { after: next }) })         // components.ts
//
// withQuery() also builds filter and sort links that keep the rest of the query.
import type { z } from 'zod';

export function encodeCursor(values: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** The cursor of a link, checked against the shape the query needs; null when absent or broken. */
export function readCursor<T>(value: unknown, shape: z.ZodType<T>): T | null {
  if (typeof value !== 'string' || value === '' || value.length > 1024) return null;
  try {
    const parsed = shape.safeParse(JSON.parse(Buffer.from(value, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The rows to show and the cursor of the next page, from a query that asked for `limit + 1`. */
export function pageOf<Row>(
  rows: readonly Row[],
  limit: number,
  position: (row: Row) => readonly unknown[],
): { shown: Row[]; next: string | null } {
  const shown = rows.slice(0, limit);
  const next = rows.length > limit ? encodeCursor(position(shown[shown.length - 1])) : null;
  return { shown, next };
}

/**
 * The URL with these query parameters set (null or '' removes one). `after` is dropped unless
 * given, so a new filter or sort starts again at the first page.
 */
export function withQuery(url: string, changes: Record<string, string | number | null | undefined>): string {
  const [path, query = ''] = url.split('?');
  const params = new URLSearchParams(query);
  if (!('after' in changes)) params.delete('after');
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === '') params.delete(name);
    else params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
