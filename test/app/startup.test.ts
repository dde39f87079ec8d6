// `npm start` (bin/start.ts) with the embedded PostgreSQL: it runs on its own DATA_DIR's server or
// refuses, says why in one line, and a start that fails leaves nothing running.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { freePort, startEmbeddedDatabase } from '../../src/db/embedded.ts';
import { initialisedDataDir } from '../support/initialisedDataDir.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Run = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

function startProcess(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/start.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The exit code, or a failure (with what it printed) when it is still running after `ms`. */
async function exitWithin(run: Run, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill('SIGTERM');
      reject(new Error(`still running after ${ms} ms:\n${run.output()}`));
    }, ms);
  });
  return Promise.race([run.exited, timeout]).finally(() => clearTimeout(timer));
}

async function waitFor(run: Run, pattern: RegExp, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!pattern.test(run.output())) {
    if (Date.now() > until) throw new Error(`no ${pattern} within ${ms} ms:\n${run.output()}`);
    if (run.child.exitCode !== null) throw new Error(`exited early:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function occupy(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

async function answers(port: number): Promise<boolean> {
  const client = new pg.Client({
    connectionString: `postgres://switchboard:switchboard@127.0.0.1:${port}/postgres`,
    connectionTimeoutMillis: 2000,
  });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The log's lines at warn level or above: JSON (not a terminal) has one object a line. */
const loud = (output: string) => output.split('\n').filter((line) => /"level":(40|50|60)/.test(line));

describe('npm start: its own database, and a clean failure', function () {
  this.timeout(90_000);
  const directories: string[] = [];
  const newDataDir = () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'switchboard-startup-'));
    directories.push(directory);
    return directory;
  };
  /** A DATA_DIR already initialised and migrated, where the first start is not the point. */
  const initialised = async () => {
    const directory = await initialisedDataDir('switchboard-startup-');
    directories.push(directory);
    return directory;
  };
  after(() => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  /** Starts on a new DATA_DIR with that EMBEDDED_PG_PORT, expects a refusal: its one line, and no database made. */
  async function refusedStart(pgPort: number): Promise<string> {
    const dataDir = newDataDir();
    const run = startProcess({
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(pgPort),
    });
    expect(await exitWithin(run, 30_000), run.output()).to.equal(1);
    const lines = loud(run.output());
    expect(lines, run.output()).to.have.length(1);
    expect(run.output()).to.not.contain('listening');
    expect(existsSync(path.join(dataDir, 'pg')), 'a database made for a server that cannot run').to.equal(
      false,
    );
    return lines[0];
  }

  it("refuses the port of another DATA_DIR's embedded PostgreSQL instead of using its data", async () => {
    const pgPort = await freePort();
    const other = await startEmbeddedDatabase({
      dataDir: await initialised(),
      port: pgPort,
      persistent: false,
    });
    try {
      const line = await refusedStart(pgPort);
      expect(line).to.contain(
        `Port ${pgPort} (EMBEDDED_PG_PORT) is taken by the embedded PostgreSQL of another data directory`,
      );
      expect(line).to.contain('set EMBEDDED_PG_PORT to a free port');
    } finally {
      await other.stop();
    }
  });

  it('refuses an EMBEDDED_PG_PORT another program listens on, before making a database', async () => {
    const pgPort = await freePort();
    const squatter = await occupy(pgPort);
    try {
      expect(await refusedStart(pgPort)).to.contain(
        `Port ${pgPort} (EMBEDDED_PG_PORT) is in use by another program`,
      );
    } finally {
      squatter.close();
    }
  });

  it("names the port DATA_DIR's own PostgreSQL already runs on when EMBEDDED_PG_PORT is another", async () => {
    const dataDir = await initialised();
    const runningPort = await freePort();
    const own = await startEmbeddedDatabase({ dataDir, port: runningPort, persistent: false });
    try {
      const run = startProcess({
        DATA_DIR: dataDir,
        PORT: String(await freePort()),
        EMBEDDED_PG_PORT: String(await freePort()),
      });
      expect(await exitWithin(run, 30_000), run.output()).to.equal(1);
      const lines = loud(run.output());
      expect(lines, run.output()).to.have.length(1);
      expect(lines[0]).to.contain(`already runs on port ${runningPort}`);
      expect(lines[0]).to.contain(`set EMBEDDED_PG_PORT=${runningPort} to use it`);
    } finally {
      await own.stop();
    }
  });

  it('a taken PORT: one readable line, exit 1, and the embedded PostgreSQL it started is stopped', async () => {
    const webPort = await freePort();
    const pgPort = await freePort();
    const squatter = await occupy(webPort);
    // The one truly first start here: initdb and every migration, then the refusal of PORT.
    const dataDir = newDataDir();
    try {
      const run = startProcess({
        DATA_DIR: dataDir,
        PORT: String(webPort),
        EMBEDDED_PG_PORT: String(pgPort),
      });
      expect(await exitWithin(run, 60_000), run.output()).to.equal(1);
      const lines = loud(run.output());
      expect(lines, run.output()).to.have.length(1);
      expect(lines[0]).to.contain(`"msg":"Port ${webPort} is in use`).and.contain('set PORT to a free port');
      expect(run.output(), 'no stack trace').to.not.match(/\\n\s+at |\n\s+at /);
      expect(existsSync(path.join(dataDir, 'pg', 'PG_VERSION')), 'the database was made').to.equal(true);
      expect(await answers(pgPort), 'the embedded PostgreSQL still answers').to.equal(false);
      expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), 'PostgreSQL still running').to.equal(
        false,
      );
    } finally {
      squatter.close();
    }
  });

  it('on a terminal (LOG_FORMAT=pretty): readable lines, a banner with the URL and the next step', async () => {
    const webPort = await freePort();
    const pgPort = await freePort();
    const dataDir = await initialised();
    const run = startProcess({
      DATA_DIR: dataDir,
      PORT: String(webPort),
      EMBEDDED_PG_PORT: String(pgPort),
      LOG_FORMAT: 'pretty',
    });
    try {
      await waitFor(run, /Ctrl-C stops/, 60_000);
      await fetch(`http://127.0.0.1:${webPort}/api/health`);
      await waitFor(run, /GET \/api\/health 200 [\d.]+ ms/, 5_000);
      const output = run.output();
      expect(output).to.contain(`Switchboard is running at http://localhost:${webPort}`);
      expect(output).to.contain(
        `DATA_DIR=${dataDir} EMBEDDED_PG_PORT=${pgPort} npx switchboard admin create --email`,
      );
      expect(output).to.contain(`sign in at http://localhost:${webPort}/auth/signin`);
      expect(output).to.match(/INFO.*: Switchboard listening on/);
      expect(output, 'no JSON line').to.not.contain('{"level"');
      run.child.kill('SIGINT');
      expect(await exitWithin(run, 30_000), run.output()).to.equal(0);
      expect(await answers(pgPort)).to.equal(false);
    } finally {
      run.child.kill('SIGKILL');
    }
  });
});
