// Questions to the person at the terminal: a password typed twice without echo, and yes/no
// confirmations. Prompts go to stderr so that stdout (and --json) carries only the result.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { readStdin } from './context.ts';

/** Someone can answer: standard input is a terminal, not a pipe or a file. */
export function interactive(): boolean {
  return Boolean(process.stdin.isTTY);
}

/**
 * One line typed at the terminal, or null if it was cancelled (Ctrl-C, Ctrl-D). Hidden: readline
 * still edits the line (backspace works) but its echo goes to a stream that discards it.
 */
function ask(question: string, hidden: boolean): Promise<string | null> {
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({
    input: process.stdin,
    output: hidden ? discard : process.stderr,
    terminal: true,
  });
  return new Promise((resolve) => {
    let answer: string | null = null;
    rl.once('SIGINT', () => rl.close());
    rl.once('close', () => {
      if (hidden || answer === null) process.stderr.write('\n');
      resolve(answer);
    });
    if (hidden) process.stderr.write(question);
    rl.question(hidden ? '' : question, (line) => {
      answer = line;
      rl.close();
    });
  });
}

/**
 * A piped password: one line, or the same line twice (what a person types at the two prompts). A
 * password is never several lines: taking them all would set one nobody could type at sign-in.
 */
export function pipedPassword(input: string): string {
  const lines = input.split(/\r?\n/);
  if (lines.length === 1) return lines[0];
  if (lines.length === 2 && lines[0] === lines[1]) return lines[0];
  if (lines.length === 2) throw new Error('the two passwords on standard input differ; nothing was changed');
  throw new Error(
    'standard input holds more than two lines: give the password on one line (or twice); nothing was changed',
  );
}

/** A new password: asked twice without echo on a terminal, else read from standard input. */
export async function readNewPassword(): Promise<string> {
  if (!interactive()) return pipedPassword(await readStdin());
  const password = await ask('Password: ', true);
  if (password === null) throw new Error('cancelled: no password was typed; nothing was changed');
  const again = await ask('Confirm password: ', true);
  if (again === null) throw new Error('cancelled: the password was not confirmed; nothing was changed');
  if (again !== password) throw new Error('the two passwords differ; nothing was changed');
  return password;
}

/** Asks a yes/no question on the terminal; anything but y/yes is no. */
export async function confirm(question: string): Promise<boolean> {
  const answer = await ask(`${question} [y/N] `, false);
  return /^y(es)?$/i.test(answer?.trim() ?? '');
}
