// What `npm start` prints on a terminal once it listens: where it is, what it runs on, and the next
// step (an admin account, made with the CLI), with the variables the CLI needs to find the same data.
import path from 'node:path';
import type { Config } from '../config.ts';

const DEFAULTS = { DATA_DIR: '.data', EMBEDDED_PG_PORT: 54329 };

/** The variables the CLI must be given to reach the same database, as a shell prefix. */
function cliEnvironment(config: Config): string {
  if (config.DATABASE_URL) return '';
  const prefix = [
    config.DATA_DIR === DEFAULTS.DATA_DIR ? '' : `DATA_DIR=${config.DATA_DIR}`,
    config.EMBEDDED_PG_PORT === DEFAULTS.EMBEDDED_PG_PORT
      ? ''
      : `EMBEDDED_PG_PORT=${config.EMBEDDED_PG_PORT}`,
  ].filter(Boolean);
  return prefix.length > 0 ? `${prefix.join(' ')} ` : '';
}

function databaseLine(config: Config): string {
  if (config.DATABASE_URL) return 'the PostgreSQL server of DATABASE_URL';
  const directory = path.resolve(config.DATA_DIR, 'pg');
  return `embedded PostgreSQL on port ${config.EMBEDDED_PG_PORT}, data in ${directory}`;
}

export function startBanner(config: Config, port: number): string {
  const url = `http://localhost:${port}`;
  const sameDatabase = config.DATABASE_URL ? ' (with the same DATABASE_URL)' : '';
  return [
    '',
    `  Switchboard is running at ${url}`,
    `  Database:      ${databaseLine(config)}`,
    `  API reference: ${url}/docs`,
    '',
    `  First run? Create an admin in another terminal${sameDatabase}:`,
    `    ${cliEnvironment(config)}npx switchboard admin create --email you@example.com --name You --workspace-name Acme`,
    `  then sign in at ${url}/auth/signin.`,
    '',
    `  Ctrl-C stops Switchboard${config.DATABASE_URL ? '' : ' and its PostgreSQL'}.`,
    '',
    '',
  ].join('\n');
}
