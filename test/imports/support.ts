// Shared set-up of the import tests: files in a temporary directory, the CLI run as a real
// process, and direct reads of what the import wrote.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { runCli } from '../support/cli.ts';
import { server } from '../support/server.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'switchboard-import-'));
let files = 0;

/** Writes `content` to a fresh file named `*.<extension>`; returns its path. */
export function importFileOf(extension: string, content: string): string {
  const file = path.join(directory, `import-${++files}.${extension}`);
  writeFileSync(file, content);
  return file;
}

export const ndjson = (rows: unknown[]) => `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`;

export function runImport(
  kind: 'contacts' | 'events',
  file: string,
  workspaceId: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  return runCli(['import', kind, file, '--workspace', workspaceId, ...extra], { env });
}

/** The import with --json, which must succeed; its summary. */
export async function importJson(
  kind: 'contacts' | 'events',
  file: string,
  workspaceId: string,
  extra: string[] = [],
) {
  const run = await runImport(kind, file, workspaceId, [...extra, '--json']);
  expect(run.code, run.stderr).to.equal(0);
  return JSON.parse(run.stdout);
}

export async function countRows(table: 'events' | 'contacts' | 'outgoing_events', workspaceId: string) {
  return server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from ${sql.identifier([table])} where workspace_id = ${workspaceId}
  `);
}

/** The types of the workspace's outgoing events with how many of each. */
export async function outboxTypes(workspaceId: string): Promise<Record<string, number>> {
  const rows = await server().context.db.any(sql.type(z.object({ type: z.string(), n: z.number() }))`
    select type, count(*)::int as n from outgoing_events where workspace_id = ${workspaceId} group by type
  `);
  return Object.fromEntries(rows.map((row) => [row.type, row.n]));
}

/** Whether any staging table of an import is left behind. */
export async function stagingTables(): Promise<number> {
  return server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from pg_tables where tablename like 'import_staging_%'
  `);
}
