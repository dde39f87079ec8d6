// Shared plumbing for CLI commands: a database (DATABASE_URL, or the embedded one of `npm start`,
// started if it is not running), output as text or --json, and errors on stderr with exit code 1.
import type { DatabasePool } from 'slonik';
import { type Config, configOrExit } from '../config.ts';
import { createDatabasePool } from '../db/pool.ts';
import { AppError } from '../http/errors.ts';
import { createLogger } from '../log.ts';
import { resolveDatabase } from '../runtime.ts';

export type CliContext = { db: DatabasePool; config: Config; databaseUrl: string };

export async function withDatabase<T>(action: (context: CliContext) => Promise<T>): Promise<T> {
  const config = configOrExit();
  const log = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, 'switchboard-cli');
  const database = await resolveDatabase(config, log);
  const db = await createDatabasePool(database.url, { maxPoolSize: 4 });
  try {
    return await action({ db, config, databaseUrl: database.url });
  } finally {
    await db.end();
    await database.stop();
  }
}

export function print(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

/** Runs a command action, turning failures into a message on stderr and exit code 1. */
export function run<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (error) {
      const message =
        error instanceof AppError
          ? `${error.message}${'errors' in error ? `\n${JSON.stringify((error as { errors: unknown }).errors)}` : ''}`
          : error instanceof Error
            ? error.message
            : String(error);
      process.stderr.write(`error: ${message}\n`);
      process.exitCode = 1;
    }
  };
}

/** Reads all of standard input (for secrets that should not appear in shell history). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? '')));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((cell) => cell[i].length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}
