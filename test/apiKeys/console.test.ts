// The API keys page of the console over HTTP: list (masked), create with scopes and expiry (the key
// shown once), revoke after a confirmation page; ADMIN only like the API; CSRF; other workspaces;
// hostile names.
import { request } from 'node:http';
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { consolePage, followRedirect, postConsoleForm, url } from '../support/console.ts';
import { keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

/** POSTs a form and resolves with its Location as soon as the response's headers arrive. */
function postAndTakeLocation(client: Client, path: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sent = request(url(path), {
      method: 'POST',
      headers: { cookie: client.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
    });
    sent.on('response', (response) => {
      resolve(response.headers.location ?? '');
      response.resume();
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

function form(fields: [string, string][]) {
  return {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

describe('console: API keys (settings/keys)', () => {
  it('creates a key with the ticked scopes and expiry, shows it once, and it works', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/keys`;
    const page = await consolePage(client, path);
    expect(page.text).to.contain('No API keys yet').and.contain('value="contacts:read"');
    expect(page.text).to.match(/<a href="[^"]+settings\/keys" aria-current="page">API keys/);
    const created = await client.request(
      'POST',
      path,
      form([
        ['_csrf', page.token],
        ['name', 'CRM sync'],
        ['scopes', 'contacts:read'],
        ['scopes', 'events:write'],
        ['expiresOn', '2099-12-31'],
      ]),
    );
    expect(created.status, created.text).to.equal(201);
    const key = /data-copy="([^"]+)"/.exec(created.text)?.[1];
    expect(created.text).to.contain('shown only this once');
    const [listed] = (await client.get(`/api/workspaces/${workspaceId}/keys`)).body;
    expect(listed).to.include({ name: 'CRM sync', expiresAt: '2099-12-31T23:59:59.000Z' });
    expect(listed.scopes).to.deep.equal(['contacts:read', 'events:write']);
    const works = await new Client(key).get(`/api/workspaces/${workspaceId}/contacts`);
    expect(works.status).to.equal(200);
    const list = await consolePage(client, path);
    expect(list.text).to.contain('CRM sync').and.contain(listed.key).and.not.contain(key!);
  });

  it('refuses a key without scopes or with a past expiry, with the API’s message', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/keys`;
    const page = await consolePage(client, path);
    const noScope = await postConsoleForm(client, path, { _csrf: page.token, name: 'x' });
    expect((await followRedirect(client, noScope)).text).to.contain('scopes: must list at least one scope');
    const past = await postConsoleForm(client, path, {
      _csrf: page.token,
      name: 'x',
      scopes: 'contacts:read',
      expiresOn: '2001-01-01',
    });
    expect((await followRedirect(client, past)).text).to.contain('expiresAt: must be in the future');
    expect((await client.get(`/api/workspaces/${workspaceId}/keys`)).body).to.deep.equal([]);
  });

  it('keeps the flash of a POST for a redirect followed on its headers (saved before the 303 leaves)', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/keys`;
    const page = await consolePage(client, path);
    let shown = 0;
    for (let i = 0; i < 10; i++) {
      // As a browser does: the redirect is followed as soon as its headers arrive.
      const location = await postAndTakeLocation(client, path, `_csrf=${page.token}&name=try`);
      if ((await client.get(location)).text.includes('scopes: must list at least one scope')) shown++;
    }
    expect(shown).to.equal(10);
  });

  it('revokes a key after its confirmation page; the key stops working', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { client: keyed, keyId } = await keyClient(client, workspaceId, ['contacts:read']);
    const path = `/app/${workspaceId}/settings/keys`;
    const list = await consolePage(client, path);
    expect(list.text).to.contain(`${path}/${keyId}/revoke`);
    const confirm = await consolePage(client, `${path}/${keyId}/revoke`);
    expect(confirm.text).to.contain('Revoke test key?').and.contain('cannot be undone');
    const revoked = await postConsoleForm(client, `${path}/${keyId}/revoke`, { _csrf: confirm.token });
    expect((await followRedirect(client, revoked)).text).to.contain('Key “test key” revoked.');
    expect((await keyed.get(`/api/workspaces/${workspaceId}/contacts`)).status).to.equal(401);
    await consolePage(client, `${path}/${keyId}/revoke`, 404);
  });

  it('is for ADMINs only: a MEMBER gets the 403 page and its crafted POSTs change nothing', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const { keyId } = await keyClient(admin, workspaceId, ['contacts:read']);
    const { client: member } = await memberOf(admin, workspaceId, 'MEMBER');
    const path = `/app/${workspaceId}/settings/keys`;
    const contacts = await consolePage(member, `/app/${workspaceId}/contacts`);
    const page = await consolePage(member, path, 403);
    expect(page.text).to.contain('Only an ADMIN');
    await consolePage(member, `${path}/${keyId}/revoke`, 403);
    const created = await postConsoleForm(member, path, {
      _csrf: contacts.token,
      name: 'mine',
      scopes: 'contacts:read',
    });
    expect(created.status).to.equal(403);
    const revoked = await postConsoleForm(member, `${path}/${keyId}/revoke`, { _csrf: contacts.token });
    expect(revoked.status).to.equal(403);
    const keys = (await admin.get(`/api/workspaces/${workspaceId}/keys`)).body;
    expect(keys.map((k: { id: string }) => k.id)).to.deep.equal([keyId]);
  });

  it('refuses forms without CSRF and treats another workspace’s keys as not found', async () => {
    const { client: other, workspaceId: otherWorkspace } = await workspaceWithAdmin();
    const { keyId } = await keyClient(other, otherWorkspace, ['contacts:read']);
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/keys`;
    const page = await consolePage(client, path);
    await consolePage(client, `${path}/${keyId}/revoke`, 404);
    expect((await postConsoleForm(client, `${path}/${keyId}/revoke`, { _csrf: page.token })).status).to.equal(
      404,
    );
    const forged = await postConsoleForm(client, path, {
      _csrf: 'x'.repeat(32),
      name: 'f',
      scopes: 'contacts:read',
    });
    expect(forged.status).to.equal(403);
    await consolePage(client, `/app/${otherWorkspace}/settings/keys`, 404);
    expect((await other.get(`/api/workspaces/${otherWorkspace}/keys`)).body).to.have.length(1);
    expect((await client.get(`/api/workspaces/${workspaceId}/keys`)).body).to.deep.equal([]);
  });

  it('renders a hostile key name inert', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const created = await client.post(`/api/workspaces/${workspaceId}/keys`, {
      name: HOSTILE,
      scopes: ['contacts:read'],
    });
    const path = `/app/${workspaceId}/settings/keys`;
    for (const url of [path, `${path}/${created.body.id}/revoke`]) {
      const page = await consolePage(client, url);
      expect(page.text, url).to.not.contain('<script>alert').and.not.contain('<img src=x');
      expect(page.text, url).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });
});
