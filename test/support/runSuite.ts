// `npm test`: the type-check and lint run while the suite runs, not before it. On two cores the
// suite leaves CPU idle (tests wait on timers, PostgreSQL, child processes), and the checks, which
// took about 45 s ahead of it, fill that time at a lower priority, so they slow no test down.
// Their output is held back and printed after the suite's; any failure fails `npm test`.
// The suite's files go to the workers longest first: a long file picked up last keeps one worker
// busy while the others are done.
import { type ChildProcess, spawn } from 'node:child_process';
import { globSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { processTimes } from './cpuMeter.ts';

const LOW_PRIORITY = 10;
// Five workers keep two cores busy: each spends much of its time waiting (timers, PostgreSQL,
// children). On this project's 2-core machine, one after the other, the files' span was 372 s with
// three, 305 s with four and 292 s with five, all processes then using 1.85 cores on average.
const JOBS = process.env.TEST_JOBS ?? '5';

/**
 * The longest files of the suite (tens of seconds each), longest first: by wall on a quiet machine,
 * then by CPU (npm test prints both tables).
 */
const LONGEST = [
  'test/http/fuzz.test.ts',
  'test/console/partTwoJourney.test.ts',
  'test/imports/events.test.ts',
  'test/cli/cli.test.ts',
  'test/app/shutdown.test.ts',
  'test/webhooks/cli.test.ts',
  'test/imports/console.test.ts',
  'test/tracking/people.test.ts',
  'test/console/screenshots.test.ts',
  'test/app/startup.test.ts',
  'test/accounts/signinLimits.test.ts',
  'test/tracking/counting.test.ts',
  'test/segments/background.test.ts',
  'test/webhooks/outbound.test.ts',
  'test/forms/forms.test.ts',
  'test/imports/contacts.test.ts',
  'test/imports/limits.test.ts',
  'test/app/retention.test.ts',
  'test/workspaces/workspaceAccess.test.ts',
  'test/forms/doubleOptIn.test.ts',
  'test/db/databaseRestart.test.ts',
  'test/feedback/ses.test.ts',
  'test/campaigns/crash.test.ts',
  'test/feedback/providers.test.ts',
  'test/contacts/mergeRace.test.ts',
  'test/campaigns/campaigns.test.ts',
  'test/db/databaseStall.test.ts',
];

function testFiles(): string[] {
  const all = globSync('test/**/*.test.ts').sort();
  const longest = LONGEST.filter((file) => all.includes(file));
  return [...longest, ...all.filter((file) => !longest.includes(file))];
}

function run(command: string, args: string[], options: { quiet?: boolean; nice?: boolean } = {}) {
  const child: ChildProcess = spawn(command, args, {
    stdio: options.quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  if (options.nice && child.pid !== undefined) setPriority(child.pid, LOW_PRIORITY);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const done = new Promise<number>((resolve) => {
    child.on('error', (error) => {
      output += `${error.message}\n`;
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
  return { done, output: () => output };
}

/**
 * The checks one after the other (each spawns its own children, which inherit the priority). Their
 * CPU is what this process's reaped children gained meanwhile: mocha, the other child, still runs.
 */
async function checks() {
  let failed = false;
  let output = '';
  const before = processTimes('self')?.children ?? 0;
  for (const script of ['typecheck', 'lint']) {
    const check = run('npm', ['run', '--silent', script], { quiet: true, nice: true });
    const code = await check.done;
    output += `> npm run ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`}\n${check.output()}`;
    failed ||= code !== 0;
  }
  return { failed, output, cpu: (processTimes('self')?.children ?? 0) - before };
}

/**
 * Each file's span in its worker and its CPU in ms (test/support/cpuMeter.ts), as test/hooks.ts
 * records it when TEST_TIMINGS_FILE is set; one more line holds the shared PostgreSQL's whole CPU.
 */
type Cpu = { own: number; children: number; database: number };
type Timing = { file: string; pid: number; start: number; end: number; cpu?: Cpu };
type Line = Timing | { cluster: number };

const seconds = (ms: number, width = 8) => `${(ms / 1000).toFixed(1)} s`.padStart(width);
const cpuOf = (timing: Timing) =>
  timing.cpu ? timing.cpu.own + timing.cpu.children + timing.cpu.database : 0;

function readTimings(timingsFile: string): Line[] {
  try {
    return readFileSync(timingsFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

/** The slowest files of the run by wall and by CPU, to keep LONGEST in step and to see where the time goes. */
function slowestFiles(lines: Line[], count = 15): string {
  const timings = lines.filter((line): line is Timing => 'file' in line);
  if (timings.length === 0) return '';
  const files = timings.filter((timing) => !timing.file.startsWith('('));
  const first = Math.min(...timings.map((timing) => timing.start));
  const last = Math.max(...timings.map((timing) => timing.end));
  const byWall = [...files]
    .sort((a, b) => b.end - b.start - (a.end - a.start))
    .slice(0, count)
    .map((timing) => `${seconds(timing.end - timing.start)}  ${path.relative('.', timing.file)}`);
  const byCpu = [...files]
    .sort((a, b) => cpuOf(b) - cpuOf(a))
    .slice(0, count)
    .map((timing) => {
      const cpu = timing.cpu ?? { own: 0, children: 0, database: 0 };
      const figures = [cpuOf(timing), cpu.own, cpu.children, cpu.database, timing.end - timing.start];
      return `${figures.map((ms) => seconds(ms, 9)).join('')}  ${path.relative('.', timing.file)}`;
    });
  const header = ['CPU', 'worker', 'spawned', 'database', 'wall'].map((name) => name.padStart(9)).join('');
  return (
    `Slowest test files by wall (of ${files.length}; ${seconds(last - first).trim()} from the first file's start to the last's end):\n${byWall.join('\n')}\n\n` +
    `Slowest test files by CPU (worker: the test process with its web and worker; spawned: CLI, Chromium, own PostgreSQL; database: its backends on the shared PostgreSQL):\n${header}\n${byCpu.join('\n')}\n`
  );
}

/** Where the CPU of the run went: all of it (every process of the run has exited and been reaped), and its parts. */
function cpuTotals(lines: Line[], checks: number): string {
  const timings = lines.filter((line): line is Timing => 'file' in line);
  const files = timings.filter((timing) => !timing.file.startsWith('('));
  const sum = (list: Timing[]) => list.reduce((total, timing) => total + cpuOf(timing), 0);
  const database = timings.reduce((total, timing) => total + (timing.cpu?.database ?? 0), 0);
  const cluster = lines.find((line): line is { cluster: number } => 'cluster' in line)?.cluster ?? 0;
  const named = (name: string) => sum(timings.filter((timing) => timing.file === name));
  // A process left running when its worker exits is reaped by no one of the run: added by hand.
  const all = (processTimes('self')?.children ?? 0) + named('(running at worker exit)');
  const parts = [
    `all processes ${seconds(all, 0)}, of which test files ${seconds(sum(files), 0)}`,
    `worker start-ups ${seconds(named('(worker start-up)'), 0)}`,
    `shared PostgreSQL besides the files' backends ${seconds(Math.max(0, cluster - database), 0)}`,
    `type-check and lint ${seconds(checks, 0)}`,
  ];
  return `CPU: ${parts.join(', ')}.\n`;
}

/**
 * Chromium is installed (when missing) beside the suite, not before it: on a fresh machine apt's
 * download and unpacking need not hold up the files that drive no browser. Its outcome goes to a
 * file that the browser tests wait for (test/support/browser.ts) before they launch it.
 */
async function chromiumBeside() {
  const outcomeFile = path.join(tmpdir(), `switchboard-chromium-${process.pid}`);
  process.once('exit', () => rmSync(outcomeFile, { force: true }));
  process.env.TEST_CHROMIUM_OUTCOME = outcomeFile;
  const installed = run('node', ['test/support/ensureChromium.ts'], { quiet: true });
  const code = await installed.done;
  writeFileSync(outcomeFile, code === 0 ? '' : installed.output() || `exit ${code}`);
  return { failed: code !== 0, output: installed.output() };
}

async function suite() {
  const chromium = chromiumBeside();
  // `npm test -- <files>` runs those files (with the checks) instead of the whole suite.
  const files = process.argv.length > 2 ? process.argv.slice(2) : testFiles();
  const mocha = await run('mocha', ['--parallel', '--jobs', JOBS, ...files]).done;
  const installed = await chromium;
  return { failed: installed.failed || mocha !== 0, output: installed.output };
}

// Every process of the run (mocha's workers, and through bin/*.ts the CLI and servers the tests
// spawn) shares Node's compile cache: the type-stripped modules are compiled once, not per process.
process.env.NODE_COMPILE_CACHE ??= path.join(tmpdir(), 'node-compile-cache');
// The per-file timings go to a temporary file, or to TEST_TIMINGS_FILE to keep them.
const timingsFile =
  process.env.TEST_TIMINGS_FILE ?? path.join(tmpdir(), `switchboard-test-timings-${process.pid}.jsonl`);
if (!process.env.TEST_TIMINGS_FILE) process.once('exit', () => rmSync(timingsFile, { force: true }));
process.env.TEST_TIMINGS_FILE = timingsFile;

const [checked, tests] = await Promise.all([checks(), suite()]);
const lines = readTimings(timingsFile);
process.stdout.write(
  `\n${slowestFiles(lines)}\n${cpuTotals(lines, checked.cpu)}\n${tests.output}${checked.output}`,
);
process.exitCode = checked.failed || tests.failed ? 1 : 0;
