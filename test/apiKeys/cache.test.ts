// Each web process caches live API keys (src/apiKeys/cache.ts). These tests hold the cache to its
// promise: a key that stops being live stops working everywhere at once, not when an entry ages.
import { expect } from 'chai';
import { eventually, keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { type SecondWeb, server, startSecondWeb } from '../support/server.ts';

async function statusWithKey(baseUrl: string, path: string, key: string): Promise<number> {
  const response = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.status;
}

/** Uses the key on `baseUrl` for a while, so that its process has it cached. */
async function warm(baseUrl: string, path: string, key: string) {
  for (let i = 0; i < 10; i++) {
    expect(await statusWithKey(baseUrl, path, key)).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

describe('API keys: the per-process cache', () => {
  let web: SecondWeb;
  before(async () => {
    web = await startSecondWeb();
  });
  after(async () => {
    await web.stop();
  });

  it('a key revoked through one process stops authenticating in another at once', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { key, keyId } = await keyClient(client, workspaceId, ['contacts:read']);
    const path = `/api/workspaces/${workspaceId}/contacts`;
    await warm(web.url, path, key);
    const revoked = await client.delete(`/api/workspaces/${workspaceId}/keys`, { keyId });
    expect(revoked.status, revoked.text).to.equal(204);
    expect(await statusWithKey(server().baseUrl, path, key)).to.equal(401);
    // The other process hears of it by NOTIFY: well within a second, where a cached entry lives 30 s.
    await eventually(async () => (await statusWithKey(web.url, path, key)) === 401, 2_000);
  });

  it('a cached key stops authenticating when it expires', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const created = await client.post(`/api/workspaces/${workspaceId}/keys`, {
      name: 'short-lived',
      scopes: ['contacts:read'],
      expiresAt,
    });
    expect(created.status, created.text).to.equal(201);
    const path = `/api/workspaces/${workspaceId}/contacts`;
    await warm(server().baseUrl, path, created.body.key);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 20));
    expect(await statusWithKey(server().baseUrl, path, created.body.key)).to.equal(401);
  });
});
