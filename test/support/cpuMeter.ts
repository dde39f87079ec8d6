// CPU accounting for `npm test` (Linux /proc; elsewhere every figure is 0). On a machine shared with
// other work, wall time says little about what a test file costs; its CPU does. A file's CPU is that
// of its mocha worker (the test code and the in-process web and worker it talks to), of the
// processes the worker spawned and reaped meanwhile (CLI runs, Chromium, a service's own PostgreSQL:
// the kernel adds a reaped child's CPU, and its own reaped children's, to the parent's; live ones
// are read from their process tree), and of the
// run's shared PostgreSQL backends serving the worker's own database. Backends are sampled by a
// poller (process titles name the database); one that exits between two samples loses its CPU
// since the last one, so the database figure is a slight undercount.
import { readFileSync } from 'node:fs';

/** Milliseconds per clock tick: USER_HZ is 100 on every Linux that Node supports. */
const TICK_MS = 10;
// Often enough to see most of a CLI run's backend (a second or more), rarely enough to cost little.
const POLL_MS = 500;

export type CpuSample = { own: number; children: number; database: number };

/** utime+stime and cutime+cstime of a process, in ms (fields 14-17 of /proc/<pid>/stat). */
export function processTimes(pid: number | 'self'): { own: number; children: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields are counted after it.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const field = (n: number) => Number(fields[n - 3]);
  return { own: (field(14) + field(15)) * TICK_MS, children: (field(16) + field(17)) * TICK_MS };
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The live children of a process (Linux 3.5+: /proc/<pid>/task/<pid>/children). */
function childrenOf(pid: number): number[] {
  return read(`/proc/${pid}/task/${pid}/children`).trim().split(' ').filter(Boolean).map(Number);
}

/** The postmaster of the run's shared PostgreSQL (set by test/hooks.ts), if it runs here. */
function postmasterPid(): number | undefined {
  const pid = Number(process.env.TEST_POSTMASTER_PID);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * The whole CPU of the shared PostgreSQL so far: the postmaster, its exited children (background
 * processes and every backend of every worker) and its live ones.
 */
export function clusterCpu(): number {
  const pid = postmasterPid();
  const postmaster = pid ? processTimes(pid) : null;
  if (!pid || !postmaster) return 0;
  const live = childrenOf(pid).reduce((sum, child) => sum + (processTimes(child)?.own ?? 0), 0);
  return postmaster.own + postmaster.children + live;
}

/** Backends of `database` under the postmaster: each one's CPU as last sampled, by pid. */
class BackendPoller {
  private readonly ours = new Map<number, number>();
  private readonly others = new Set<number>();
  private readonly postmaster: number;
  private readonly database: string;

  constructor(postmaster: number, database: string) {
    this.postmaster = postmaster;
    this.database = database;
    setInterval(() => this.poll(), POLL_MS).unref();
  }

  /** A client backend's title is "postgres: <user> <database> <host>(<port>) <state>". */
  private classify(pid: number): boolean | undefined {
    const words = read(`/proc/${pid}/cmdline`).replace(/\0/g, ' ').trim().split(/\s+/);
    if (words[0] !== 'postgres:') return false;
    if (words.length >= 4 && words[3].includes('(')) return words[2] === this.database;
    // A background process has no host; a backend still starting up has not named its database yet.
    return words.some((word) => word.includes('(')) ? undefined : false;
  }

  poll(): void {
    for (const pid of childrenOf(this.postmaster)) {
      if (this.others.has(pid)) continue;
      if (!this.ours.has(pid)) {
        const ours = this.classify(pid);
        if (ours === false) this.others.add(pid);
        if (!ours) continue;
      }
      const times = processTimes(pid);
      if (times) this.ours.set(pid, times.own);
    }
  }

  total(): number {
    this.poll();
    let sum = 0;
    for (const cpu of this.ours.values()) sum += cpu;
    return sum;
  }
}

let poller: BackendPoller | undefined;

/** Starts sampling the backends of this process's own database on the shared PostgreSQL. */
export function meterDatabase(database: string): void {
  const pid = postmasterPid();
  if (pid && !poller) poller = new BackendPoller(pid, database);
}

/**
 * The CPU of a process's live descendants: each one's own and that of its reaped children. When one
 * exits and is reaped, the same CPU moves into its parent's children figure, so a sum of both stays
 * steady: a browser kept open across files (test/support/browser.ts) is charged to the files that
 * used it, not to the one running when it exits.
 */
function liveDescendants(pid: number): number {
  return childrenOf(pid).reduce((sum, child) => {
    const times = processTimes(child);
    return sum + (times ? times.own + times.children + liveDescendants(child) : 0);
  }, 0);
}

/** The CPU of this process's children still running (and of theirs). */
export function runningChildrenCpu(): number {
  return liveDescendants(process.pid);
}

export function sampleCpu(): CpuSample {
  const self = processTimes('self') ?? { own: 0, children: 0 };
  return {
    own: self.own,
    children: self.children + liveDescendants(process.pid),
    database: poller?.total() ?? 0,
  };
}

export function cpuSince(start: CpuSample): CpuSample {
  const now = sampleCpu();
  return {
    own: now.own - start.own,
    children: now.children - start.children,
    database: now.database - start.database,
  };
}
