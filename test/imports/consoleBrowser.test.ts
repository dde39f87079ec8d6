// The imports pages in Chromium, as a person uses them: upload a small CSV through the form, look
// at its mapping and preview, start it, and watch it finish (htmx polls the progress, then reloads
// the page with the outcome); each page passes axe.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import type { ElementHandle } from 'puppeteer-core';
import { suiteChromium } from '../support/browser.ts';
import { expectAccessible, isolatedPage, signInBrowser, url } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';

describe('imports: the pages in a browser', function () {
  this.timeout(120_000);
  const chromium = suiteChromium();

  it('uploads a CSV, shows its mapping, imports it and shows the outcome, accessibly', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Import Co');
    const known = await client.post(`/api/workspaces/${workspaceId}/contacts`, { email: 'ada@example.com' });
    expect(known.status, known.text).to.equal(201);
    const file = path.join(tmpdir(), `switchboard-browser-import-${process.pid}.csv`);
    writeFileSync(file, 'email,first_name,plan\nada@example.com,Ada,pro\nnot-an-email,Bob,trial\n');
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await signInBrowser(page, user.email, `/app/${workspaceId}/imports`);
      expect(page.url()).to.equal(url(`/app/${workspaceId}/imports`));
      await expectAccessible(page);
      const input = (await page.$('#import-file')) as ElementHandle<HTMLInputElement> | null;
      await input!.uploadFile(file);
      await Promise.all([page.waitForNavigation(), page.click('main form button[type="submit"]')]);
      expect(page.url()).to.match(new RegExp(`/app/${workspaceId}/imports/imp_[0-9A-Z]{26}$`));
      expect(await page.$eval('#target-0', (select) => (select as HTMLSelectElement).value)).to.equal(
        'field:email',
      );
      await expectAccessible(page);
      // The import waits on a contact held here: the page shows its progress, polled by htmx,
      // and once the contact is let go, the outcome without any click.
      const holder = new pg.Client({ connectionString: server().databaseUrl });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('select id from contacts where workspace_id = $1 for update', [workspaceId]);
        await Promise.all([page.waitForNavigation(), page.click('button[value="start"]')]);
        await page.waitForFunction(
          () => document.querySelector('#import-progress')?.textContent?.includes('merging contacts'),
          {
            timeout: 60_000,
          },
        );
        await expectAccessible(page);
      } finally {
        await holder.query('commit');
        await holder.end();
      }
      await page.waitForFunction(
        () => [...document.querySelectorAll('main h2')].some((h) => h.textContent === 'Refused rows'),
        { timeout: 90_000 },
      );
      const main = await page.$eval('main', (el) => el.textContent ?? '');
      expect(main).to.contain('finished');
      expect(main).to.contain('not-an-email,Bob,trial');
      await expectAccessible(page);
    } finally {
      await close();
    }
  });
});
