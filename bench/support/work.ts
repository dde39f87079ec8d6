// The WORK a run cost, beside its wall-clock rate: CPU-seconds of this process and of the
// PostgreSQL it uses, the share of the time the event loop sat idle, and what pg_stat_statements
// counted (statements, their execution time). On a machine shared with other work the rates move by
// ±15 % or more from minute to minute; the CPU a unit of work takes moves far less.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

/** Linux's USER_HZ: /proc reports CPU time in ticks of 1/100 s. */
const TICKS_PER_SECOND = 100;

function statFields(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null; // ended meanwhile
  }
}

// Fields after "pid (comm) ": state ppid … utime(14) stime(15) cutime(16) cstime(17), 1-based.
const ticks = (fields: string[], from: number, to: number) =>
  fields.slice(from - 3, to - 2).reduce((sum, value) => sum + Number(value), 0);

/**
 * CPU-seconds (user and system, all its threads) process `pid` has used so far: another process's
 * figure, such as a child's (the bench's worker), where process.cpuUsage() only knows its own.
 */
export function processCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return fields ? ticks(fields, 14, 15) / TICKS_PER_SECOND : Number.NaN;
}

/**
 * CPU-seconds of the PostgreSQL server whose postmaster is `postmasterPid`: its own, its ended
 * children's (reaped into its cutime/cstime: backends that disconnected) and its live children's.
 * Only this server's processes: other PostgreSQL servers on the machine are not counted.
 */
export function postgresCpuSeconds(postmasterPid: number): number {
  const own = statFields(postmasterPid);
  if (!own) return Number.NaN;
  let total = ticks(own, 14, 17);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[1]) === postmasterPid) total += ticks(fields, 14, 17);
  }
  return total / TICKS_PER_SECOND;
}

/** The postmaster's pid from an embedded server's data directory, or null (another server). */
export function postmasterPid(dataDirectory: string): number | null {
  try {
    return Number(readFileSync(path.join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

export type WorkMark = { process: NodeJS.CpuUsage; loop: EventLoopUtilization; postgres: number };

export function markWork(postmaster: number | null): WorkMark {
  return {
    process: process.cpuUsage(),
    loop: performance.eventLoopUtilization(),
    postgres: postmaster === null ? Number.NaN : postgresCpuSeconds(postmaster),
  };
}

export type Work = {
  /** CPU-seconds of this process (all its threads) since the mark. */
  processSeconds: number;
  postgresSeconds: number;
  /** Share of the wall-clock time the main thread's event loop was idle. */
  idleShare: number;
};

export function workSince(mark: WorkMark, postmaster: number | null): Work {
  const used = process.cpuUsage(mark.process);
  return {
    processSeconds: (used.user + used.system) / 1e6,
    postgresSeconds: postmaster === null ? Number.NaN : postgresCpuSeconds(postmaster) - mark.postgres,
    idleShare: 1 - performance.eventLoopUtilization(mark.loop).utilization,
  };
}

/** One statement as pg_stat_statements counts it (nested: run by a trigger or a function). */
export type Statement = { calls: number; ms: number; query: string; toplevel: boolean };

/**
 * What pg_stat_statements counted since its last reset, by execution time, its own queries and
 * those matching `leaveOut` (the bench's bookkeeping) left out; with `reset`, it starts counting
 * anew. Nested statements (foreign-key checks, what triggers run) are listed too: their time is
 * also inside the statement that ran them. [] when the extension is not there.
 */
export async function readStatements(
  databaseUrl: string,
  { leaveOut = [], reset = false }: { leaveOut?: string[]; reset?: boolean } = {},
): Promise<Statement[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const patterns = ['%pg_stat_statements%', ...leaveOut];
    const filters = patterns.map((_, index) => `and query not ilike $${index + 1}`);
    const { rows } = await client.query(
      `select calls::int as calls, total_exec_time as ms, toplevel,
         regexp_replace(query, '[[:space:]]+', ' ', 'g') as query
       from pg_stat_statements where true ${filters.join(' ')}
       order by total_exec_time desc`,
      patterns,
    );
    if (reset) await client.query('select pg_stat_statements_reset()');
    return rows;
  } catch {
    return []; // not preloaded in this server
  } finally {
    await client.end();
  }
}

/** A sum over the statements the clients sent (the nested ones' time is inside theirs). */
export function topLevel(rows: readonly Statement[], figure: 'calls' | 'ms'): number {
  return rows.reduce((sum, row) => sum + (row.toplevel ? row[figure] : 0), 0);
}

/**
 * The `limit` statements that took the most execution time: share of the top-level time, calls
 * and µs per unit of work (a delivery, a message), and the statement.
 */
export function statementLines(
  rows: readonly Statement[],
  units: number,
  unit: string,
  limit = 10,
): string[] {
  const total = topLevel(rows, 'ms');
  return rows
    .slice(0, limit)
    .map(
      (row) =>
        `    ${((row.ms / total) * 100).toFixed(0).padStart(3)} %  ${(row.calls / units).toFixed(4)} calls ${((row.ms * 1000) / units).toFixed(1).padStart(6)} µs/${unit}  ${row.toplevel ? '' : '(nested) '}${row.query.slice(0, 110)}`,
    );
}
