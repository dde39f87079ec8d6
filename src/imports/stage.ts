// The staging table of one import: an UNLOGGED table (no WAL for rows that live minutes), filled
// through COPY on a connection of its own, read by the merge in the pool's transaction, dropped at
// the end. Its name carries the import's id, so concurrent imports never share one.
import { once } from 'node:events';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ulid } from '../db/ids.ts';

/** Rows are handed to COPY in chunks of about this many characters. */
const CHUNK_CHARS = 256 * 1024;

export type Staging = {
  name: string;
  /** Appends one COPY text line; resolves when the stream can take more. */
  write: (line: string) => Promise<void>;
  /** Ends the COPY; resolves once every row is in the table. */
  finish: () => Promise<void>;
  drop: () => Promise<void>;
};

/** `columns`: the table's columns, the first `copied` of them filled by COPY (the rest by the merge). */
export async function createStaging(
  databaseUrl: string,
  columns: readonly string[],
  copied: number,
): Promise<Staging> {
  const name = `import_staging_${ulid().toLowerCase()}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`create unlogged table ${name} (${columns.join(', ')}, skip text)`);
  const names = columns
    .slice(0, copied)
    .map((column) => column.split(' ')[0])
    .join(', ');
  const copy = client.query(copyFrom(`copy ${name} (${names}) from stdin`));
  const failed = once(copy, 'error').then(([error]) => Promise.reject(error));
  failed.catch(() => {});
  let buffer = '';
  const flush = async () => {
    if (!buffer) return;
    const ok = copy.write(buffer);
    buffer = '';
    if (!ok) await Promise.race([once(copy, 'drain'), failed]);
  };
  return {
    name,
    write: async (line) => {
      buffer += line;
      if (buffer.length >= CHUNK_CHARS) await flush();
    },
    finish: async () => {
      await flush();
      copy.end();
      await Promise.race([once(copy, 'finish'), failed]);
    },
    drop: async () => {
      await client.query(`drop table if exists ${name}`).catch(() => {});
      await client.end();
    },
  };
}
