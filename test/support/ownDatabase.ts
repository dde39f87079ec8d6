// A service on a database of its own, for tests that restart or stall PostgreSQL without disturbing
// the shared test server: an embedded PostgreSQL in a directory of its own (a copy of one already
// initialised and migrated, test/support/initialisedDataDir.ts), with web and worker in this
// process (as test/support/server.ts starts the shared one).

import { rmSync } from 'node:fs';
import { expect } from 'chai';
import type { AppContext } from '../../src/core/context.ts';
import { type EmbeddedDatabase, freePort, startEmbeddedDatabase } from '../../src/db/embedded.ts';
import { PASSWORD, uniqueEmail } from './factories.ts';
import { initialisedDataDir } from './initialisedDataDir.ts';
import { TEST_CLUSTER_SETTINGS } from './server.ts';

export type OwnService = {
  baseUrl: string;
  context: AppContext;
  /** Stops PostgreSQL (fast shutdown: open connections are terminated) and starts it again. */
  restartDatabase: () => Promise<void>;
  /** An API key with these scopes in a new workspace. */
  apiKey: (scopes: string[]) => Promise<{ key: string; workspaceId: string }>;
  stop: () => Promise<void>;
};

export async function startOwnService(overrides: Record<string, unknown> = {}): Promise<OwnService> {
  const dataDir = await initialisedDataDir('switchboard-own-');
  const options = { dataDir, port: await freePort(), persistent: true, settings: TEST_CLUSTER_SETTINGS };
  let database: EmbeddedDatabase = await startEmbeddedDatabase(options);
  const { config } = await import('../../src/config.ts');
  const runtime = await import('../../src/app/runtime.ts');
  await runtime.migrateAll(database.url, config());
  const context = await runtime.createContext({ ...config(), ...overrides }, database.url, 'worker');
  const worker = await runtime.startWorker(context);
  const web = await runtime.startWeb(context, 0);
  const baseUrl = `http://127.0.0.1:${web.port}`;
  return {
    baseUrl,
    context,
    restartDatabase: async () => {
      await database.stop();
      database = await startEmbeddedDatabase(options);
    },
    apiKey: (scopes) => createApiKey(baseUrl, scopes),
    stop: async () => {
      await web.stop();
      await worker.stop();
      await runtime.closeContext(context);
      await database.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function createApiKey(baseUrl: string, scopes: string[]) {
  const post = async (path: string, body: unknown, cookie = '') => {
    const response = await fetch(baseUrl + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify(body),
    });
    expect(response.status, path).to.be.oneOf([200, 201]);
    return { body: await response.json(), cookies: response.headers.getSetCookie() };
  };
  const email = uniqueEmail();
  await post('/api/auth/register', { name: 'Admin', email, password: PASSWORD });
  const signedIn = await post('/api/auth/signin', { email, password: PASSWORD });
  const cookie = signedIn.cookies.map((value) => value.split(';')[0]).join('; ');
  const workspace = await post('/api/workspaces', { name: 'Own' }, cookie);
  const key = await post(`/api/workspaces/${workspace.body.id}/keys`, { name: 'k', scopes }, cookie);
  return { key: key.body.key as string, workspaceId: workspace.body.id as string };
}
