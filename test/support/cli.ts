// Runs the `switchboard` CLI as a real process against the test database.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { server } from './server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type CliRun = { code: number | null; stdout: string; stderr: string };

/** `node bin/cli.ts …args` with the test database, silent logs and `env` on top; `stdin` is piped in. */
export function runCli(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  return new Promise<CliRun>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/cli.ts'), ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: server().databaseUrl,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        ...options.env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
