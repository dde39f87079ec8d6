// A DATA_DIR whose embedded PostgreSQL is already initialised and migrated, for the tests whose
// point is not the first start itself (`npm start` on a taken port, Ctrl-C, a service of its own):
// initdb and every migration cost several CPU-seconds each time. The first call in a process makes
// one template (started, migrated, stopped) and every call returns a fresh copy of it: a copy of a
// stopped cluster is a cluster. test/app/startup.test.ts keeps a truly first start.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, startEmbeddedDatabase } from '../../src/db/embedded.ts';
import { TEST_CLUSTER_SETTINGS } from './server.ts';

let template: Promise<string> | undefined;

async function makeTemplate(): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-template-'));
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const database = await startEmbeddedDatabase({
    dataDir,
    port: await freePort(),
    persistent: true,
    settings: TEST_CLUSTER_SETTINGS,
  });
  try {
    const { config } = await import('../../src/config.ts');
    const { migrateAll } = await import('../../src/app/runtime.ts');
    await migrateAll(database.url, config());
  } finally {
    await database.stop();
  }
  return dataDir;
}

/** A new directory (named `prefix`…) holding a stopped, migrated embedded PostgreSQL under pg/. */
export async function initialisedDataDir(prefix: string): Promise<string> {
  template ??= makeTemplate();
  const source = await template;
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  // `cp -a`, not fs.cpSync: as root the cluster belongs to the `postgres` user, and must stay so.
  execFileSync('cp', ['-a', `${source}/.`, dataDir]);
  return dataDir;
}
