// Deleting a workspace deletes every row that carries its id. Several hot tables (events, outgoing
// events, memberships of segments, score changes, enrollments, webhook messages …) have no foreign
// key to workspaces (sql/0008 dropped them for ingest's sake), so a cascade from the workspace row
// would leave them behind. The tables are read from the catalog rather than listed here, so a table
// added later with a workspace_id column is deleted too without anyone remembering this file.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { forgetCachedSessions } from '../http/sessionCache.ts';

const TableRow = z.object({ table_name: z.string() });
const EdgeRow = z.object({ child: z.string(), parent: z.string() });

/** Every table of the schema with a workspace_id column, except workspaces itself. */
export async function tablesWithWorkspaceId(db: Db): Promise<string[]> {
  const rows = await db.any(sql.type(TableRow)`
    select c.table_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and c.column_name = 'workspace_id'
      and t.table_type = 'BASE TABLE'
    order by c.table_name
  `);
  return rows.map((row) => row.table_name);
}

/** Foreign keys between those tables: the child references the parent. */
async function foreignKeys(db: Db, tables: string[]) {
  return db.any(sql.type(EdgeRow)`
    select conrelid::regclass::text as child, confrelid::regclass::text as parent
    from pg_constraint
    where contype = 'f' and conrelid <> confrelid
      and conrelid::regclass::text = any(${sql.array(tables, 'text')})
      and confrelid::regclass::text = any(${sql.array(tables, 'text')})
  `);
}

/**
 * The tables in an order that deletes referencing rows before the rows they reference, so no
 * restrictive foreign key (a campaign's trigger segment) refuses and no `set null` rewrites rows
 * that are about to go anyway.
 */
function childrenFirst(tables: string[], edges: readonly { child: string; parent: string }[]): string[] {
  const ordered: string[] = [];
  let remaining = [...tables];
  while (remaining.length > 0) {
    const referenced = new Set(
      edges.filter((edge) => remaining.includes(edge.child)).map((edge) => edge.parent),
    );
    const leaves = remaining.filter((table) => !referenced.has(table));
    // A cycle cannot be ordered; its tables go in name order (their keys cascade in practice).
    const next = leaves.length > 0 ? leaves : remaining;
    ordered.push(...next);
    remaining = remaining.filter((table) => !next.includes(table));
  }
  return ordered;
}

/** Deletes the workspace and every row of it; to be run inside a transaction. */
export async function deleteWorkspaceRows(tx: Db, workspaceId: string): Promise<void> {
  const tables = await tablesWithWorkspaceId(tx);
  for (const table of childrenFirst(tables, await foreignKeys(tx, tables))) {
    await tx.query(sql.typeAlias('void')`
      delete from ${sql.identifier([table])} where workspace_id = ${workspaceId}
    `);
  }
  await tx.query(sql.typeAlias('void')`delete from workspaces where id = ${workspaceId}`);
  // Its memberships went by cascade: every member's cached roles go with them.
  forgetCachedSessions();
}
