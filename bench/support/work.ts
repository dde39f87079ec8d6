// The WORK a run cost, beside its wall-clock rate: CPU-seconds of this process and of the
// PostgreSQL it uses, the share of the time the event loop sat idle, and what pg_stat_statements
// counted (statements, their execution time). On a machine shared with other work the rates move by
// ±15 % or more from minute to minute; the CPU a unit of work takes moves far less.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { performance } from 'node:perf_hooks';

/** Linux's USER_HZ: /proc reports CPU time in ticks of 1/100 s. */
const TICKS_PER_SECOND = 100;

function statFields(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null; // ended meanwhile
  }
}

/**
 * CPU-seconds of the PostgreSQL server whose postmaster is `postmasterPid`: its own, its ended
 * children's (reaped into its cutime/cstime: backends that disconnected) and its live children's.
 * Only this server's processes: other PostgreSQL servers on the machine are not counted.
 */
export function postgresCpuSeconds(postmasterPid: number): number {
  const own = statFields(postmasterPid);
  if (!own) return Number.NaN;
  // Fields after "pid (comm) ": state ppid … utime(14) stime(15) cutime(16) cstime(17), 1-based.
  const ticks = (fields: string[], from: number, to: number) =>
    fields.slice(from - 3, to - 2).reduce((sum, value) => sum + Number(value), 0);
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
