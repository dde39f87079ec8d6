// The console's shell over HTTP: where /app and / lead, the membership rule (another workspace is a
// 404 page), CSRF refusals, the security headers and the assets.
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import { signedInUser, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';

describe('console shell (/app)', () => {
  it('sends someone signed out to sign in, coming back to the page they asked for', async () => {
    const response = await new Client().get('/app/ws_unknown/contacts?q=a');
    expect(response.status).to.equal(303);
    expect(response.headers.get('location')).to.equal(
      '/auth/signin?next=%2Fapp%2Fws_unknown%2Fcontacts%3Fq%3Da',
    );
  });

  it('leads / to /app, and /app to the first workspace, then to the one used last', async () => {
    const { client, workspaceId } = await workspaceWithAdmin('First');
    const second = await client.post('/api/workspaces', { name: 'Second' });
    expect((await client.get('/')).headers.get('location')).to.equal('/app');
    const app = await client.get('/app');
    expect(app.status).to.equal(303);
    expect(app.headers.get('location')).to.equal(`/app/${workspaceId}`);
    const home = await client.get(`/app/${second.body.id}`);
    expect(home.headers.get('location')).to.equal(`/app/${second.body.id}/contacts`);
    expect((await client.get('/app')).headers.get('location')).to.equal(`/app/${second.body.id}`);
  });

  it('offers someone with no workspace to create one, and lands in it', async () => {
    const { client } = await signedInUser('Newcomer');
    const app = await client.get('/app');
    expect(app.headers.get('location')).to.equal('/app/new');
    const form = await consolePage(client, '/app/new');
    expect(form.text).to.contain('not a member of any workspace yet');
    const blank = await postConsoleForm(client, '/app/new', { _csrf: form.token, name: '  ' });
    expect(blank.status).to.equal(400);
    const created = await postConsoleForm(client, '/app/new', { _csrf: form.token, name: 'Acme <b>' });
    expect(created.status).to.equal(303);
    const home = await client.get(created.headers.get('location')!);
    const page = await followRedirect(client, home);
    expect(page.text).to.contain('Workspace “Acme &lt;b&gt;” created.');
    expect(page.text).to.contain('<title>Contacts · Acme &lt;b&gt; · Switchboard</title>');
  });

  it("answers another workspace's pages, and an unknown id, with the 404 page", async () => {
    const { workspaceId } = await workspaceWithAdmin('Theirs');
    const { client } = await workspaceWithAdmin('Mine');
    const theirs = await consolePage(client, `/app/${workspaceId}/contacts`, 404);
    const unknown = await consolePage(client, '/app/ws_00000000000000000000000000/contacts', 404);
    expect(theirs.text).to.contain('Not found').and.not.contain('Theirs');
    expect(unknown.text.replace(/ws_\w+/g, '')).to.equal(theirs.text.replace(/ws_\w+/g, ''));
  });

  it('puts the role in the shell: a MEMBER reaches pages of the workspace', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin('Shared');
    const member = await memberOf(admin, workspaceId, 'MEMBER');
    const page = await consolePage(member.client, `/app/${workspaceId}/contacts`);
    expect(page.text).to.match(/Shared<\/a> <span class="muted">member<\/span>/);
  });

  it('refuses a form without its CSRF token (403 page) and changes nothing', async () => {
    const { client } = await signedInUser('Forger');
    await consolePage(client, '/app/new');
    const refused = await postConsoleForm(client, '/app/new', { _csrf: 'x'.repeat(32), name: 'Forged' });
    expect(refused.status).to.equal(403);
    expect(refused.text).to.contain('Form expired');
    const missing = await postConsoleForm(client, '/app/new', { name: 'Forged' });
    expect(missing.status).to.equal(403);
    expect((await client.get('/api/workspaces')).body).to.deep.equal([]);
  });

  it('sends a CSP forbidding inline scripts and framing, and links only its own assets', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const page = await consolePage(client, `/app/${workspaceId}/contacts`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp)
      .to.contain("script-src 'self'")
      .and.contain("frame-ancestors 'none'")
      .and.contain("style-src 'self'");
    expect(csp).not.to.contain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).to.equal('DENY');
    expect(page.text).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>|\son\w+=|\sstyle=/);
    const assets = [...page.text.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets).to.have.length(3);
    for (const asset of assets) {
      const response = await new Client().get(asset);
      expect(response.status, asset).to.equal(200);
      expect(response.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect(response.text.length).to.be.greaterThan(500);
    }
    expect((await new Client().get('/app/assets/console.0000000000.css')).status).to.equal(303);
  });

  it('switches the theme with a form, which comes back to the page', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const page = await consolePage(client, `/app/${workspaceId}/contacts`);
    expect(page.text).to.contain('<html lang="en" class="theme-system">');
    const switched = await postConsoleForm(client, '/app/theme', {
      _csrf: page.token,
      theme: 'dark',
      next: `/app/${workspaceId}/contacts`,
    });
    const after = await followRedirect(client, switched);
    expect(after.text).to.contain('<html lang="en" class="theme-dark">');
  });
});
