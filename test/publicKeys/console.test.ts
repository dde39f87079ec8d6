// The publishable keys page of the console over HTTP: create, edit and revoke keys, reveal and
// rotate the identity secret; ADMIN only like the API; CSRF; other workspaces; hostile names.
import { expect } from 'chai';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
const api = (workspaceId: string) => `/api/workspaces/${workspaceId}/publishable-keys`;

describe('console: publishable keys (settings/publishable)', () => {
  it('creates, edits and revokes a key with the API’s rules', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/publishable`;
    const page = await consolePage(client, path);
    expect(page.text).to.contain('No publishable keys yet');
    const bad = await postConsoleForm(client, path, {
      _csrf: page.token,
      name: 'Site',
      allowedOrigins: 'https://www.example.com/path',
    });
    expect((await followRedirect(client, bad)).text).to.contain('allowedOrigins.0: must be an origin');
    const created = await postConsoleForm(client, path, {
      _csrf: page.token,
      name: 'Site',
      allowedOrigins: 'https://www.example.com\nhttps://shop.example.com',
      allowedEventTypes: 'page_view, signup',
    });
    expect((await followRedirect(client, created)).text).to.contain('Publishable key “Site” created.');
    const [key] = (await client.get(api(workspaceId))).body;
    expect(key.allowedOrigins).to.deep.equal(['https://www.example.com', 'https://shop.example.com']);
    expect(key.allowedEventTypes).to.deep.equal(['page_view', 'signup']);
    const edit = await consolePage(client, `${path}/${key.id}`);
    expect(edit.text).to.contain(key.key);
    const saved = await postConsoleForm(client, `${path}/${key.id}`, {
      _csrf: edit.token,
      name: 'Shop',
      allowedOrigins: 'https://shop.example.com',
      allowedEventTypes: '',
    });
    expect((await followRedirect(client, saved)).text).to.contain('Publishable key “Shop” saved.');
    const [changed] = (await client.get(api(workspaceId))).body;
    expect(changed).to.deep.include({
      name: 'Shop',
      allowedOrigins: ['https://shop.example.com'],
      allowedEventTypes: [],
    });
    const revoked = await postConsoleForm(client, `${path}/${key.id}/revoke`, { _csrf: edit.token });
    expect((await followRedirect(client, revoked)).text).to.contain('Publishable key “Shop” revoked.');
    expect((await client.get(api(workspaceId))).body).to.deep.equal([]);
  });

  it('reveals the identity secret on request only, and rotates it after asking', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/publishable`;
    const page = await consolePage(client, path);
    expect(page.text).to.not.contain('sbid_');
    const revealed = await postConsoleForm(client, `${path}/identity-secret`, { _csrf: page.token });
    expect(revealed.status).to.equal(200);
    const { secret } = (await client.get(`/api/workspaces/${workspaceId}/identity-secret`)).body;
    expect(revealed.text).to.contain(`data-copy="${secret}"`);
    const ask = await consolePage(client, `${path}/identity-secret/rotate`);
    expect(ask.text).to.contain('stop working at once');
    const rotated = await postConsoleForm(client, `${path}/identity-secret/rotate`, { _csrf: page.token });
    const next = (await client.get(`/api/workspaces/${workspaceId}/identity-secret`)).body.secret;
    expect(next).to.not.equal(secret);
    expect(rotated.text).to.contain(`data-copy="${next}"`);
  });

  it('is for ADMINs only, refuses forms without CSRF, and hides other workspaces’ keys', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const key = (await admin.post(api(workspaceId), { name: 'Site', allowedOrigins: ['https://a.example'] }))
      .body;
    const { client: member } = await memberOf(admin, workspaceId, 'MEMBER');
    const path = `/app/${workspaceId}/settings/publishable`;
    const contacts = await consolePage(member, `/app/${workspaceId}/contacts`);
    await consolePage(member, path, 403);
    await consolePage(member, `${path}/${key.id}`, 403);
    for (const [url, fields] of [
      [path, { name: 'x', allowedOrigins: 'https://b.example' }],
      [`${path}/${key.id}`, { name: 'Taken' }],
      [`${path}/${key.id}/revoke`, {}],
      [`${path}/identity-secret`, {}],
      [`${path}/identity-secret/rotate`, {}],
    ] as [string, Record<string, string>][]) {
      const refused = await postConsoleForm(member, url, { _csrf: contacts.token, ...fields });
      expect(refused.status, url).to.equal(403);
      expect(refused.text).to.not.contain('sbid_');
    }
    const { client: stranger, workspaceId: own } = await workspaceWithAdmin();
    const mine = await consolePage(stranger, `/app/${own}/settings/publishable`);
    await consolePage(stranger, `/app/${own}/settings/publishable/${key.id}`, 404);
    const crossed = await postConsoleForm(stranger, `/app/${own}/settings/publishable/${key.id}/revoke`, {
      _csrf: mine.token,
    });
    expect(crossed.status).to.equal(404);
    const forged = await postConsoleForm(admin, `${path}/${key.id}/revoke`, { _csrf: 'x'.repeat(32) });
    expect(forged.status).to.equal(403);
    expect((await admin.get(api(workspaceId))).body).to.have.length(1);
  });

  it('renders a hostile key name inert', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const key = (
      await client.post(api(workspaceId), { name: HOSTILE, allowedOrigins: ['https://a.example'] })
    ).body;
    const path = `/app/${workspaceId}/settings/publishable`;
    for (const url of [path, `${path}/${key.id}`]) {
      const page = await consolePage(client, url);
      expect(page.text, url).to.not.contain('<script>alert').and.not.contain('<img src=x');
      expect(page.text, url).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });
});
