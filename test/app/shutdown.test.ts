// Graceful shutdown of the real entry points: SIGTERM stops accepting, lets the in-flight request
// finish, closes pools and exits 0 well within 30 s.
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { freePort } from '../../src/db/embedded.ts';
import { uniqueEmail } from '../support/factories.ts';
import { initialisedDataDir } from '../support/initialisedDataDir.ts';
import { server, TEST_ENV } from '../support/server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Exit = { code: number | null; signal: NodeJS.Signals | null };
type Started = { child: ChildProcess; output: () => string; exited: Promise<Exit> };

/** Starts a bin/ entry point and resolves once its log says `ready`. */
function start(
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
  options: { detached?: boolean } = {},
): Promise<Started> {
  const child = spawn(process.execPath, [path.join(ROOT, entry)], {
    cwd: ROOT,
    detached: options.detached ?? false,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: server().databaseUrl,
      DATA_DIR: server().dataDir, // the generated session secret goes there, not into the checkout
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      // The suite's other tests register hundreds of users from this address in the same database.
      REGISTRATION_MAX_PER_IP: '1000000',
      // A worker schedules its jobs in the shared database (pg-boss keeps one schedule per job): with
      // the default every-minute refresh, the test server's worker would refresh time-window segments
      // under the tests that age events and refresh them themselves (test/segments/background.test.ts).
      SEGMENT_REFRESH_CRON: TEST_ENV.SEGMENT_REFRESH_CRON,
      ...env,
    },
  });
  let output = '';
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (ready.test(output)) resolve({ child, output: () => output, exited });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    exited.then((exit) => reject(new Error(`${entry} exited (${JSON.stringify(exit)}) early:\n${output}`)));
  });
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)),
  ]);
}

describe('graceful shutdown', function () {
  this.timeout(60_000);

  it('web: on SIGTERM stops accepting, finishes the in-flight request, and exits 0', async () => {
    const port = await freePort();
    const web = await start('bin/web.ts', { PORT: String(port) }, /listening on/);
    const body = JSON.stringify({ name: 'In flight', email: uniqueEmail(), password: 'a long password' });
    // A request whose body is still arriving when the signal comes.
    const socket = connect(port, '127.0.0.1');
    socket.write(
      `POST /api/auth/register HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    const answered = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    web.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await connectionRefused(port), 'new connections are refused while draining').to.equal(true);
    socket.write(body.slice(10));
    // The server answers and then closes the connection itself (no keep-alive while draining).
    const response = await within(answered, 10_000, 'the in-flight request');
    expect(response).to.match(/^HTTP\/1.1 201 Created\r\n/);
    expect(response).to.match(/\r\nConnection: close\r\n/i);
    const exit = await within(web.exited, 30_000, 'exit after SIGTERM');
    expect(exit, web.output()).to.deep.equal({ code: 0, signal: null });
    expect(web.output()).to.contain('shutting down').and.contain('"msg":"stopped"');
  });

  it('worker: on SIGTERM stops its jobs and exits 0', async () => {
    const worker = await start('bin/worker.ts', {}, /worker started/);
    const started = Date.now();
    worker.child.kill('SIGTERM');
    const exit = await within(worker.exited, 30_000, 'exit after SIGTERM');
    expect(exit, worker.output()).to.deep.equal({ code: 0, signal: null });
    expect(Date.now() - started).to.be.below(30_000);
    expect(worker.output()).to.contain('"msg":"stopped"');
  });
});

describe('Ctrl-C on npm start', function () {
  this.timeout(120_000);

  it('SIGINT to the whole process group (embedded PostgreSQL included) stops quietly and exits 0', async () => {
    const dataDir = await initialisedDataDir('switchboard-start-');
    let group: number | undefined;
    try {
      const port = await freePort();
      // As a terminal starts it: its own process group, which Ctrl-C signals as a whole.
      const started = await start(
        'bin/start.ts',
        {
          DATABASE_URL: '',
          DATA_DIR: dataDir,
          PORT: String(port),
          EMBEDDED_PG_PORT: String(await freePort()),
        },
        /listening on/,
        { detached: true },
      );
      group = started.child.pid;
      // A signed-in request leaves the session store's pool with an idle connection.
      const base = `http://127.0.0.1:${port}`;
      const credentials = { email: uniqueEmail(), password: 'a long password' };
      const json = { 'content-type': 'application/json' };
      await fetch(`${base}/api/auth/register`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: 'Ctrl-C', ...credentials }),
      });
      const signedIn = await fetch(`${base}/api/auth/signin`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify(credentials),
      });
      expect(signedIn.status).to.equal(200);
      process.kill(-group!, 'SIGINT');
      const exit = await within(started.exited, 60_000, 'exit after Ctrl-C');
      group = undefined;
      expect(exit, started.output()).to.deep.equal({ code: 0, signal: null });
      expect(started.output(), started.output()).to.contain('"msg":"stopped"');
      // Quietly: no stack trace, nothing logged at error level or above.
      expect(started.output(), started.output()).to.not.match(/Unhandled|\n\s+at |"level":(50|60)/);
    } finally {
      if (group) process.kill(-group, 'SIGKILL'); // a failed run leaves nothing running
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
