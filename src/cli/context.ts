// The CLI kit, shared by every feature's commands: a database (DATABASE_URL, or the embedded one
// of `npm start`, started if it is not running), output as text or --json, and errors on stderr.

import { userInfo } from 'node:os';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { type Config, configOrExit, configWarnings } from '../config.ts';
import { actingAs } from '../core/actor.ts';
import { type FieldError, ValidationError } from '../core/errors.ts';
import { createDatabasePool } from '../db/pool.ts';
import { resolveDatabase } from '../db/resolve.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { createLogger } from '../log.ts';
import { installKeyRing } from '../secrets/index.ts';

export type CliContext = { db: DatabasePool; config: Config; databaseUrl: string };

export async function withDatabase<T>(action: (context: CliContext) => Promise<T>): Promise<T> {
  const config = configOrExit();
  const log = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, 'switchboard-cli');
  for (const warning of configWarnings(process.env)) log.warn(warning);
  installKeyRing(config);
  const database = await resolveDatabase(config, log);
  const db = await createDatabasePool(database.url, { maxPoolSize: 4 });
  try {
    return await action({ db, config, databaseUrl: database.url });
  } finally {
    await db.end();
    await database.stop();
  }
}

/** Options validated with a zod schema; a failure names the option (optionName). */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(zodIssuesToFieldErrors(result.error.issues, 'option'));
  return result.data;
}

/** An optional --since/--until style option. */
export const Instant = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z' })
  .transform((value) => new Date(value).toISOString())
  .optional();

export function print(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

/**
 * A validation error's path as the option the user typed: `option.expiresAt` → `--expires-at`,
 * `option.scopes.1` → `--scopes (item 2)`. The CLI validates its options with the API's schemas,
 * whose paths name body fields.
 */
export function optionName(path: string): string {
  const [field = '', ...rest] = path.replace(/^(option|body)\.?/, '').split('.');
  const flag = `--${field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
  const item = rest.length && /^\d+$/.test(rest[0]) ? ` (item ${Number(rest[0]) + 1})` : '';
  return `${flag}${item}`;
}

/** PostgreSQL's code for a relation that does not exist. */
const UNDEFINED_TABLE = '42P01';

function postgresCode(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
}

function errorLines(error: unknown): string[] {
  // Most often the CLI was pointed at another database than the service's (a fresh embedded one,
  // because DATA_DIR or EMBEDDED_PG_PORT was not given), whose tables were never made.
  if (postgresCode(error) === UNDEFINED_TABLE)
    return [
      `${error instanceof Error ? error.message : error}: this database has no Switchboard tables.`,
      'Give the CLI the DATA_DIR, EMBEDDED_PG_PORT or DATABASE_URL the service runs with (its start ' +
        'banner prints them), or run `switchboard migrate` to set this database up.',
    ];
  if (error instanceof ValidationError)
    return error.errors.map(
      (fieldError: FieldError) => `${optionName(fieldError.path)}: ${fieldError.message}`,
    );
  if (error instanceof Error) return [error.message];
  return [String(error)];
}

/** The operating-system user running the CLI, for the audit log; null where the system has none. */
function osUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

/** Runs a command action, turning failures into a message on stderr and exit code 1. */
export function run<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await actingAs({ actor: { kind: 'cli', osUser: osUser() }, origin: { kind: 'cli' } }, () =>
        action(...args),
      );
    } catch (error) {
      for (const line of errorLines(error)) process.stderr.write(`error: ${line}\n`);
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
