// SQL shared by both imports: the session settings of the merge, the table of contacts an import
// touched (what the side effects walk), the outgoing event types anyone listens to, and pages.
import { z } from 'zod';
import { type Db, sql, type Tx } from '../db/pool.ts';

export const AFFECTED = sql.identifier(['import_affected']);

/**
 * The merge runs as long as it needs (the pool's statement timeout is for requests), with memory
 * for its sorts, hashes and temporary tables (IMPORT_WORK_MEM_MB): with the default 4 MB, sorting
 * a million rows spills to disk in every statement that orders or groups the file.
 */
export async function prepareMerge(
  tx: Tx,
  staging: string,
  workMemMb: number,
  keyColumns: readonly string[],
): Promise<void> {
  await tx.query(sql.typeAlias('void')`set local statement_timeout = 0`);
  await tx.query(sql.typeAlias('void')`set local idle_in_transaction_session_timeout = 0`);
  const memory = `${workMemMb}MB`;
  await tx.query(sql.unsafe`
    select set_config('work_mem', ${memory}, true), set_config('maintenance_work_mem', ${memory}, true),
      -- temp_buffers can change only before the session's first temporary table (a pooled
      -- session that had one keeps its own size).
      case when pg_my_temp_schema() = 0 then set_config('temp_buffers', ${memory}, true) end
  `);
  // Fresh statistics: without them the planner takes the staging table for an empty one. Only of
  // the columns the merge joins, groups and filters on: those of the metadata and names cost
  // most to gather and no plan reads them.
  await tx.query(sql.typeAlias('void')`
    analyze ${sql.identifier([staging])} (${sql.join(
      keyColumns.map((column) => sql.identifier([column])),
      sql.fragment`, `,
    )})
  `);
  await tx.query(sql.typeAlias('void')`
    create temporary table import_affected (contact_id text primary key, created boolean not null)
    on commit drop
  `);
}

/**
 * The outgoing event types some active OUTBOUND endpoint of the workspace subscribes to (an
 * endpoint with no list takes every type). An import writes webhook events of these types only:
 * the fan-out would drop the others anyway.
 */
export async function subscribedTypes(db: Db, workspaceId: string): Promise<Set<string> | 'all'> {
  const rows = await db.any(sql.type(z.object({ events: z.array(z.string()) }))`
    select events from webhook_endpoints
    where workspace_id = ${workspaceId} and direction = 'OUTBOUND' and active
  `);
  if (rows.some((row) => row.events.length === 0)) return 'all';
  return new Set(rows.flatMap((row) => row.events));
}

const AffectedRow = z.object({ contact_id: z.string(), created: z.boolean() });

/** The next page of the contacts the import touched, in id order. */
export async function affectedPage(tx: Tx, after: string, limit: number) {
  return tx.any(sql.type(AffectedRow)`
    select contact_id, created from ${AFFECTED} where contact_id > ${after} order by contact_id limit ${limit}
  `);
}

/** Rows refused by the merge (an unknown contactId), for the report and the rejects file. */
export async function refusedRows(tx: Tx, staging: string, limit: number, afterLine = 0) {
  return tx.any(sql.type(z.object({ line: z.number(), skip: z.string() }))`
    select line, skip from ${sql.identifier([staging])}
    where skip like 'invalid:%' and line > ${afterLine} order by line limit ${limit}
  `);
}

export async function countSkips(tx: Tx, staging: string) {
  const rows = await tx.any(sql.type(z.object({ skip: z.string().nullable(), n: z.number() }))`
    select skip, count(*)::int as n from ${sql.identifier([staging])} group by skip
  `);
  const count = (match: (skip: string | null) => boolean) =>
    rows.filter((row) => match(row.skip)).reduce((sum, row) => sum + row.n, 0);
  return {
    kept: count((skip) => skip === null),
    duplicates: count((skip) => skip === 'duplicate'),
    alreadyImported: count((skip) => skip === 'already imported'),
    refused: count((skip) => skip?.startsWith('invalid:') ?? false),
  };
}
