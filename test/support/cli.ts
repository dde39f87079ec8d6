// Runs the `switchboard` CLI as a real process against the test database: with pipes (runCli,
// startCli) or on a pseudo-terminal (runCliOnTerminal, through util-linux `script`).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { server } from './server.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type CliRun = { code: number | null; stdout: string; stderr: string };
type CliOptions = { stdin?: string; env?: Record<string, string> };

/** The CLI's environment: the test database, silent logs, and `extra` on top. */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    DATABASE_URL: server().databaseUrl,
    // The test server's: its generated ENCRYPTION_KEY (webhook and channel secrets) lives there.
    DATA_DIR: process.env.DATA_DIR,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

/** Collects a child's output; `done` resolves when it has exited. */
export function collect(child: ChildProcessWithoutNullStreams) {
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => {
    output.stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output.stderr += chunk;
  });
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ...output }));
  });
  return { output, done };
}

/** `node bin/cli.ts …args`, still running: for tests that signal it. */
export function startCli(args: string[], options: CliOptions = {}) {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/cli.ts'), ...args], {
    cwd: ROOT,
    env: cliEnv(options.env),
  });
  child.stdin.end(options.stdin ?? '');
  return { child, ...collect(child) };
}

/** `node bin/cli.ts …args` with the test database, silent logs and `env` on top; `stdin` is piped in. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return startCli(args, options).done;
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** What a person at the terminal does: wait until `waitFor` has been shown, then type `type`. */
export type TerminalStep = { waitFor: string; type: string };

/**
 * `node bin/cli.ts …args` on a pseudo-terminal (stdin and stdout are a TTY), typing each step's
 * keys once its prompt is on the screen. The screen (stdout and stderr, as the terminal shows
 * them) comes back as `stdout`, with \r\n made \n.
 */
export async function runCliOnTerminal(
  args: string[],
  steps: TerminalStep[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  const command = [process.execPath, path.join(ROOT, 'bin/cli.ts'), ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: ROOT,
    env: cliEnv({ SHELL: '/bin/sh', ...env }),
  });
  const { output, done } = collect(child);
  let seen = 0;
  for (const step of steps) {
    const at = await waitForText(output, step.waitFor, seen, done);
    seen = at + step.waitFor.length;
    child.stdin.write(step.type);
  }
  const run = await done;
  return { ...run, stdout: run.stdout.replace(/\r\n/g, '\n') };
}

async function waitForText(output: { stdout: string }, text: string, from: number, exited: Promise<CliRun>) {
  let finished = false;
  void exited.then(() => {
    finished = true;
  });
  for (;;) {
    const at = output.stdout.indexOf(text, from);
    if (at >= 0) return at;
    if (finished)
      throw new Error(`the CLI exited without showing ${JSON.stringify(text)}:\n${output.stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
