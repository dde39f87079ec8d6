// One page of rows and the count of every matching row: what each `{data, page, limit, total}`
// list needs. The filter is written once and serves both queries, so they cannot disagree.
import type { FragmentSqlToken, ListSqlToken } from 'slonik';
import { z } from 'zod';
import { type Db, sql } from './pool.ts';

const Total = z.object({ total: z.number().int() });

export type PageWindow = { limit: number; offset: number };

/** The window of a 1-based page. */
export function pageWindow(page: { page: number; limit: number }): PageWindow {
  return { limit: page.limit, offset: (page.page - 1) * page.limit };
}

export type PageQuery = {
  columns: FragmentSqlToken;
  from: FragmentSqlToken;
  where: FragmentSqlToken | ListSqlToken;
  orderBy: FragmentSqlToken;
};

export async function selectPage<T extends z.ZodType>(db: Db, row: T, query: PageQuery, window: PageWindow) {
  const rows = await db.any(sql.type(row)`
    select ${query.columns} from ${query.from} where ${query.where}
    order by ${query.orderBy} limit ${window.limit} offset ${window.offset}
  `);
  const total = await db.oneFirst(sql.type(Total)`
    select count(*)::int as total from ${query.from} where ${query.where}
  `);
  return { rows, total };
}
