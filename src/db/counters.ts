// Counter tables kept by statement triggers (segment_daily_changes, segment_member_counts, the
// campaign counters) hold one row per key and database backend: a backend runs one transaction at
// a time, so two writers never update the same row and none waits on another's counter. Readers
// sum a key's rows. Backends come and go (a pool replaces its connections, processes restart, a
// deployment starts new ones), and each new backend that writes a key adds a row, so without care a
// key's rows grow with the age of the installation and its readers slow down with them.
// Folding moves the rows of backends that are gone into backend 0 (no backend has that process id)
// in one statement: the delete and the insert commit together, so a reader's sum is the same
// before and after in any snapshot. Rows of backends still connected are left where they are: their
// next write would only make the row again.
import { type Db, sql } from './pool.ts';

export type CounterTable = {
  table: string;
  /** The key columns, without `backend`: with it they are the primary key. */
  keys: readonly string[];
  /** The counted columns, summed into backend 0's row. */
  counts: readonly string[];
  /** Columns that follow from the key (a link's URL from its hash), carried over as they are. */
  carried?: readonly string[];
};

const columnList = (names: readonly string[]) =>
  sql.join(
    names.map((name) => sql.identifier([name])),
    sql.fragment`, `,
  );

/**
 * Folds the rows of backends no longer connected into backend 0; returns how many keys had rows
 * to fold. A
 * process id reused by a new backend since the list of live ones was read only means its row is
 * folded too, with whatever that backend wrote: the delete waits for its transaction and takes the
 * row as committed.
 */
export async function foldCounters(db: Db, counter: CounterTable): Promise<number> {
  const table = sql.identifier([counter.table]);
  const keys = columnList(counter.keys);
  const grouped = columnList([...counter.keys, ...(counter.carried ?? [])]);
  const sums = sql.join(
    counter.counts.map((name) => sql.fragment`sum(${sql.identifier([name])})`),
    sql.fragment`, `,
  );
  const additions = sql.join(
    counter.counts.map((name) => {
      const column = sql.identifier([name]);
      return sql.fragment`${column} = f.${column} + excluded.${column}`;
    }),
    sql.fragment`, `,
  );
  const result = await db.query(sql.unsafe`
    with gone as (
      delete from ${table}
      where backend <> 0 and backend <> all(array(select pid from pg_stat_activity where pid is not null))
      returning *
    )
    insert into ${table} as f (${grouped}, backend, ${columnList(counter.counts)})
    select ${grouped}, 0, ${sums} from gone group by ${grouped}
    on conflict (${keys}, backend) do update set ${additions}
  `);
  return result.rowCount;
}
