// SQL of the console's imports (sql/0053_console_imports.sql): the import's row through its states,
// the uploaded file's chunks, the progress the worker reports and the refused rows.
import { z } from 'zod';
import { type Db, sql, VoidRow } from '../db/pool.ts';
import type { ImportTarget } from './mapping.ts';

export const ImportStatus = z.enum(['uploading', 'uploaded', 'queued', 'running', 'finished', 'failed']);
export type ImportStatus = z.infer<typeof ImportStatus>;

export const ImportRow = z.object({
  id: z.string(),
  kind: z.enum(['contacts', 'events']),
  format: z.enum(['csv', 'ndjson']),
  file_name: z.string(),
  file_bytes: z.number(),
  status: ImportStatus,
  columns: z.array(z.string()),
  targets: z.array(z.string()),
  trigger_campaigns: z.boolean(),
  phase: z.string().nullable(),
  bytes_read: z.number(),
  rows_read: z.number(),
  imported: z.number(),
  refused: z.number(),
  summary: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  created_by_email: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type ImportRow = z.infer<typeof ImportRow>;

const COLUMNS = sql.fragment`
  i.id, i.kind, i.format, i.file_name, i.file_bytes, i.status, i.columns, i.targets, i.trigger_campaigns,
  i.phase, i.bytes_read, i.rows_read, i.imported, i.refused, i.summary, i.error,
  (select email from users u where u.id = i.created_by) as created_by_email,
  i.created_at, i.started_at, i.finished_at
`;

export async function insertUpload(
  db: Db,
  input: {
    workspaceId: string;
    id: string;
    kind: 'contacts' | 'events';
    format: 'csv' | 'ndjson';
    fileName: string;
    createdBy: string;
  },
) {
  await db.query(sql.type(VoidRow)`
    insert into imports (workspace_id, id, kind, format, file_name, status, created_by)
    values (${input.workspaceId}, ${input.id}, ${input.kind}, ${input.format}, ${input.fileName},
      'uploading', ${input.createdBy})
  `);
}

export async function insertChunk(db: Db, workspaceId: string, importId: string, seq: number, bytes: Buffer) {
  await db.query(sql.type(VoidRow)`
    insert into import_file_chunks (workspace_id, import_id, seq, bytes)
    values (${workspaceId}, ${importId}, ${seq}, ${sql.binary(bytes)})
  `);
}

/** The upload is whole: its size, columns and guessed mapping are known; the person maps it next. */
export async function markUploaded(
  db: Db,
  workspaceId: string,
  importId: string,
  input: { fileBytes: number; columns: string[]; targets: ImportTarget[] },
) {
  await db.query(sql.type(VoidRow)`
    update imports set status = 'uploaded', file_bytes = ${input.fileBytes},
      columns = ${sql.jsonb(input.columns)}, targets = ${sql.jsonb(input.targets)}
    where workspace_id = ${workspaceId} and id = ${importId} and status = 'uploading'
  `);
}

export async function deleteImport(db: Db, workspaceId: string, importId: string) {
  await db.query(
    sql.type(VoidRow)`delete from imports where workspace_id = ${workspaceId} and id = ${importId}`,
  );
}

export async function findImport(db: Db, workspaceId: string, importId: string): Promise<ImportRow | null> {
  return db.maybeOne(sql.type(ImportRow)`
    select ${COLUMNS} from imports i where i.workspace_id = ${workspaceId} and i.id = ${importId}
  `);
}

/** The newest imports first, after the id `before` (keyset paging on the primary key). */
export async function listImports(db: Db, workspaceId: string, before: string | null, limit: number) {
  return db.any(sql.type(ImportRow)`
    select ${COLUMNS} from imports i
    where i.workspace_id = ${workspaceId} and i.status <> 'uploading'
      ${before ? sql.fragment`and i.id < ${before}` : sql.fragment``}
    order by i.id desc limit ${limit}
  `);
}

const ChunkRow = z.object({ seq: z.number(), bytes: z.instanceof(Buffer) });

/** The chunks of the file from `seq` on, a few at a time (each is up to 1 MiB). */
export async function chunksFrom(db: Db, workspaceId: string, importId: string, seq: number, limit: number) {
  return db.any(sql.type(ChunkRow)`
    select seq, bytes from import_file_chunks
    where workspace_id = ${workspaceId} and import_id = ${importId} and seq >= ${seq}
    order by seq limit ${limit}
  `);
}

const HeadRow = z.object({ bytes: z.instanceof(Buffer) });

/**
 * The file's first `bytes` bytes (at most the first chunk's): what the mapping page previews. The
 * slice is cut in the database, so a page does not fetch a whole chunk (1 MiB) to read 64 KiB.
 */
export async function fileHead(db: Db, workspaceId: string, importId: string, bytes: number) {
  const row = await db.maybeOne(sql.type(HeadRow)`
    select substring(bytes from 1 for ${bytes}) as bytes from import_file_chunks
    where workspace_id = ${workspaceId} and import_id = ${importId} and seq = 0
  `);
  return row?.bytes ?? Buffer.alloc(0);
}

export async function deleteChunks(db: Db, workspaceId: string, importId: string) {
  await db.query(sql.type(VoidRow)`
    delete from import_file_chunks where workspace_id = ${workspaceId} and import_id = ${importId}
  `);
}

/** The mapping chosen, while the import waits for its start; false once it has started. */
export async function saveMapping(
  db: Db,
  workspaceId: string,
  importId: string,
  input: { targets: ImportTarget[]; triggerCampaigns: boolean; start: boolean },
): Promise<boolean> {
  const result = await db.query(sql.type(VoidRow)`
    update imports set targets = ${sql.jsonb(input.targets)}, trigger_campaigns = ${input.triggerCampaigns},
      status = ${input.start ? 'queued' : 'uploaded'}
    where workspace_id = ${workspaceId} and id = ${importId} and status = 'uploaded'
  `);
  return result.rowCount === 1;
}

/** The worker takes the queued import; null when it is not queued (a retry of a job that died). */
export async function claimImport(db: Db, workspaceId: string, importId: string) {
  return db.maybeOne(sql.type(ImportRow)`
    update imports i set status = 'running', started_at = now(), phase = 'reading the file'
    where i.workspace_id = ${workspaceId} and i.id = ${importId} and i.status = 'queued'
    returning ${COLUMNS}
  `);
}

export async function reportProgress(
  db: Db,
  workspaceId: string,
  importId: string,
  progress: { phase: string; bytesRead: number; rowsRead: number; refused: number },
) {
  await db.query(sql.type(VoidRow)`
    update imports set phase = ${progress.phase}, bytes_read = ${progress.bytesRead}, rows_read = ${progress.rowsRead},
      refused = ${progress.refused}
    where workspace_id = ${workspaceId} and id = ${importId} and status = 'running'
  `);
}

export async function endImport(
  db: Db,
  workspaceId: string,
  importId: string,
  outcome: {
    status: 'finished' | 'failed';
    rowsRead: number;
    imported: number;
    refused: number;
    summary: Record<string, unknown> | null;
    error: string | null;
  },
) {
  await db.transaction(async (tx) => {
    await tx.query(sql.type(VoidRow)`
      update imports set status = ${outcome.status}, phase = null, finished_at = now(),
        bytes_read = file_bytes, rows_read = ${outcome.rowsRead}, imported = ${outcome.imported},
        refused = ${outcome.refused}, summary = ${outcome.summary ? sql.jsonb(outcome.summary as never) : null},
        error = ${outcome.error}
      where workspace_id = ${workspaceId} and id = ${importId}
    `);
    await deleteChunks(tx, workspaceId, importId);
  });
}

export async function insertRejects(
  db: Db,
  workspaceId: string,
  importId: string,
  rows: readonly { line: number; reason: string }[],
) {
  if (rows.length === 0) return;
  await db.query(sql.type(VoidRow)`
    insert into import_rejects (workspace_id, import_id, line, reason)
    select ${workspaceId}, ${importId}, line, reason
    from unnest(${sql.array(
      rows.map((r) => r.line),
      'int4',
    )}, ${sql.array(
      rows.map((r) => r.reason),
      'text',
    )}) as r (line, reason)
    on conflict do nothing
  `);
}

export async function setRejectRaws(
  db: Db,
  workspaceId: string,
  importId: string,
  rows: readonly { line: number; raw: string }[],
) {
  if (rows.length === 0) return;
  await db.query(sql.type(VoidRow)`
    update import_rejects r set raw = v.raw
    from unnest(${sql.array(
      rows.map((row) => row.line),
      'int4',
    )}, ${sql.array(
      rows.map((row) => row.raw),
      'text',
    )}) as v (line, raw)
    where r.workspace_id = ${workspaceId} and r.import_id = ${importId} and r.line = v.line
  `);
}

export type RejectRow = { line: number; reason: string; raw: string | null };

/**
 * Refused rows in line order, after `afterLine` (keyset paging). A page comes back as one row of
 * JSON, checked once: checking each of thousands of rows on its own was most of a rejects
 * download's time (20,000 rows: ~450 ms of a 520 ms p95 in bench:console).
 */
export async function rejectsAfter(
  db: Db,
  workspaceId: string,
  importId: string,
  afterLine: number,
  limit: number,
): Promise<RejectRow[]> {
  const page = await db.oneFirst(sql.type(z.object({ page: z.string() }))`
    select coalesce(json_agg(json_build_object('line', r.line, 'reason', r.reason, 'raw', r.raw) order by r.line), '[]')::text as page
    from (
      select line, reason, raw from import_rejects
      where workspace_id = ${workspaceId} and import_id = ${importId} and line > ${afterLine}
      order by line limit ${limit}
    ) r
  `);
  return JSON.parse(page) as RejectRow[];
}
