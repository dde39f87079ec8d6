// `npm test`: the type-check and lint run while the suite runs, not before it. On two cores the
// suite leaves CPU idle (tests wait on timers, PostgreSQL, child processes), and the checks, which
// took about 45 s ahead of it, fill that time at a lower priority, so they slow no test down.
// Their output is held back and printed after the suite's; any failure fails `npm test`.
// The suite's files go to the workers longest first: a long file picked up last keeps one worker
// busy while the others are done.
import { type ChildProcess, spawn } from 'node:child_process';
import { globSync, readFileSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import path from 'node:path';

const LOW_PRIORITY = 10;
// Three workers keep two cores busy: each spends much of its time waiting (timers, PostgreSQL, children).
const JOBS = process.env.TEST_JOBS ?? '3';

/** The longest files of the suite (tens of seconds each, measured), longest first. */
const LONGEST = [
  'test/http/fuzz.test.ts',
  'test/console/partTwoJourney.test.ts',
  'test/cli/cli.test.ts',
  'test/app/startup.test.ts',
  'test/app/shutdown.test.ts',
  'test/accounts/signinLimits.test.ts',
  'test/app/retention.test.ts',
  'test/workspaces/workspaceAccess.test.ts',
  'test/imports/contacts.test.ts',
  'test/forms/doubleOptIn.test.ts',
  'test/db/databaseRestart.test.ts',
  'test/feedback/ses.test.ts',
  'test/campaigns/crash.test.ts',
  'test/feedback/providers.test.ts',
  'test/contacts/mergeRace.test.ts',
  'test/campaigns/campaigns.test.ts',
  'test/forms/forms.test.ts',
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

/** The checks one after the other (each spawns its own children, which inherit the priority). */
async function checks() {
  let failed = false;
  let output = '';
  for (const script of ['typecheck', 'lint']) {
    const check = run('npm', ['run', '--silent', script], { quiet: true, nice: true });
    const code = await check.done;
    output += `> npm run ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`}\n${check.output()}`;
    failed ||= code !== 0;
  }
  return { failed, output };
}

/** Each file's span in its worker, as test/hooks.ts records it when TEST_TIMINGS_FILE is set. */
type Timing = { file: string; pid: number; start: number; end: number };

/** The slowest files of the run, to keep LONGEST in step and to see where the time goes. */
function slowestFiles(timingsFile: string, count = 12): string {
  let timings: Timing[];
  try {
    timings = readFileSync(timingsFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return '';
  }
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
  const first = Math.min(...timings.map((timing) => timing.start));
  const last = Math.max(...timings.map((timing) => timing.end));
  const lines = timings
    .sort((a, b) => b.end - b.start - (a.end - a.start))
    .slice(0, count)
    .map((timing) => `${seconds(timing.end - timing.start)}  ${path.relative('.', timing.file)}`);
  return `Slowest test files (of ${timings.length}; ${seconds(last - first).trim()} from the first file's start to the last's end):\n${lines.join('\n')}\n`;
}

async function suite() {
  const chromium = await run('node', ['test/support/ensureChromium.ts']).done;
  if (chromium !== 0) return chromium;
  // `npm test -- <files>` runs those files (with the checks) instead of the whole suite.
  const files = process.argv.length > 2 ? process.argv.slice(2) : testFiles();
  return run('mocha', ['--parallel', '--jobs', JOBS, ...files]).done;
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
process.stdout.write(`\n${slowestFiles(timingsFile)}\n${checked.output}`);
process.exitCode = checked.failed || tests !== 0 ? 1 : 0;
