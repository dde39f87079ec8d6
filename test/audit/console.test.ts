// /app/{ws}/audit over HTTP and in Chromium: the ADMIN's page with readable changes, its filters and
// paging, the MEMBER's refusal, another workspace's 404, hostile names inert, and axe-core.
import { expect } from 'chai';
import { newId } from '../../src/db/ids.ts';
import { suiteChromium } from '../support/browser.ts';
import { consolePage, expectAccessible, isolatedPage, signInBrowser, url } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf, sql, testDb } from '../support/helpers.ts';

const HOSTILE = '"><img src=x onerror=alert(1)><script>alert(2)</script>';

describe('Audit log: the console page', () => {
  it('shows each change with who, from where, and its fields before and after, escaped', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const base = `/api/workspaces/${workspaceId}`;
    const hook = await client.post(`${base}/webhooks`, {
      name: HOSTILE,
      url: 'https://crm.example.com/hook',
    });
    await client.patch(`${base}/webhooks/${hook.body.id}`, { name: 'Renamed hook' });
    const page = await consolePage(client, `/app/${workspaceId}/audit`);
    expect(page.text).to.contain('<title>Audit log');
    expect(page.text).to.contain('<code>webhook.updated</code>').and.contain('<code>webhook.created</code>');
    expect(page.text).to.contain(user.email);
    expect(page.text).to.contain('<th scope="row">name</th>');
    expect(page.text).to.contain('<code>Renamed hook</code>');
    expect(page.text).not.to.contain('<script>alert').and.not.contain('<img src=x');
    expect(page.text).to.contain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(page.text).to.match(/<a href="\/app\/[^"]+\/audit"[^>]*>Audit log<\/a>/);
  });

  it('filters by action and target, and pages by the last id without repeating an entry', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const rows = Array.from({ length: 55 }, (_, n) => ({ id: newId('auditEntry'), n }));
    await testDb().query(sql.unsafe`
      insert into audit_entries (workspace_id, id, action, target_type, target_id, actor_type)
      select ${workspaceId}, r.id, 'segment.created', 'segment', 'seg_' || r.n, 'system'
      from jsonb_to_recordset(${sql.jsonb(rows)}) as r(id text, n int)`);
    await client.post(`/api/workspaces/${workspaceId}/keys`, { name: 'k', scopes: ['contacts:read'] });
    const first = await consolePage(client, `/app/${workspaceId}/audit?action=segment`);
    expect(first.text.match(/<code>segment\.created<\/code>/g)).to.have.length(50);
    expect(first.text).not.to.contain('<code>apiKey.created</code>');
    const next = /<a href="([^"]+)" rel="next">/.exec(first.text)![1].replace(/&amp;/g, '&');
    const second = await consolePage(client, next);
    expect(second.text.match(/<code>segment\.created<\/code>/g)).to.have.length(5);
    expect(second.text).not.to.contain('rel="next"');
    const one = await consolePage(client, `/app/${workspaceId}/audit?targetId=seg_7`);
    expect(one.text.match(/<code>segment\.created<\/code>/g)).to.have.length(1);
    const keys = await consolePage(
      client,
      `/app/${workspaceId}/audit?action=apiKey.created&actorType=nonsense`,
    );
    expect(keys.text.match(/<code>apiKey\.created<\/code>/g)).to.have.length(1);
    const future = await consolePage(client, `/app/${workspaceId}/audit?from=2999-01-01`);
    expect(future.text).to.contain('No change matches');
  });

  it("is ADMIN-only: a MEMBER has no link and gets the 403 page; another workspace's log is 404", async () => {
    const { client, workspaceId } = await workspaceWithAdmin('Secretive');
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const contacts = await consolePage(member.client, `/app/${workspaceId}/contacts`);
    expect(contacts.text).not.to.contain('Audit log');
    await consolePage(member.client, `/app/${workspaceId}/audit`, 403);
    const other = await workspaceWithAdmin('Other');
    const refused = await consolePage(other.client, `/app/${workspaceId}/audit`, 404);
    expect(refused.text).not.to.contain('Secretive');
  });

  describe('in a browser', function () {
    this.timeout(60_000);
    const chromium = suiteChromium();

    it('passes axe-core with entries and an open change', async () => {
      const { client, user, workspaceId } = await workspaceWithAdmin('Audited');
      const base = `/api/workspaces/${workspaceId}`;
      const hook = await client.post(`${base}/webhooks`, {
        name: 'CRM',
        url: 'https://crm.example.com/hook',
      });
      await client.patch(`${base}/webhooks/${hook.body.id}`, { name: 'CRM 2', active: false });
      const { page, close } = await isolatedPage(chromium.browser);
      try {
        await signInBrowser(page, user.email, `/app/${workspaceId}/audit`);
        expect(page.url()).to.equal(url(`/app/${workspaceId}/audit`));
        await page.click('details summary');
        await expectAccessible(page);
      } finally {
        await close();
      }
    });
  });
});
