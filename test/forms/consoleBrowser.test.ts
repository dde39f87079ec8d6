// The forms pages in Chromium, as a person builds a form: the editor (a field added), the form's
// page with its links, the hosted page filled in and submitted, and the submission listed back in
// the console. The list, the editor and the form's page pass axe.
import { expect } from 'chai';
import { suiteChromium } from '../support/browser.ts';
import { expectAccessible, isolatedPage, signInBrowser, url } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';

describe('forms: the pages in a browser', function () {
  this.timeout(90_000);
  const chromium = suiteChromium();

  it('builds a form, submits it from its hosted page, and lists the submission', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Forms Co');
    const forms = `/app/${workspaceId}/forms`;
    const { page, close } = await isolatedPage(chromium.browser);
    try {
      await signInBrowser(page, user.email, forms);
      expect(page.url()).to.equal(url(forms));
      await expectAccessible(page);
      await Promise.all([page.waitForNavigation(), page.click(`a[href="${forms}/new"]`)]);
      await page.type('#form-name', 'Early access');
      await Promise.all([page.waitForNavigation(), page.click('button[value="add"]')]);
      // The page came back with the name kept and a second field to fill in.
      expect(await page.$eval('#form-name', (input) => (input as HTMLInputElement).value)).to.equal(
        'Early access',
      );
      await page.type('#field-1-label', 'First name');
      await page.select('#field-1-mapTo', 'firstName');
      await page.type('#form-success', 'Thanks, {{ contact.firstName }}!');
      await expectAccessible(page);
      await Promise.all([page.waitForNavigation(), page.click('button[value="save"]:not([hidden])')]);
      expect(await page.$eval('main', (el) => el.textContent)).to.contain('Form created.');
      await expectAccessible(page);
      const formPage = page.url();
      const hosted = await page.$eval('.copy-button', (button) => button.getAttribute('data-copy'));
      const [form] = (await client.get(`/api/workspaces/${workspaceId}/forms`)).body;
      expect(hosted).to.equal(form.hostedUrl);

      // Open: the hosted page, served by the process that serves the console.
      await Promise.all([page.waitForNavigation(), page.click('a.hosted-link')]);
      expect(page.url()).to.equal(url(`/f/${form.id}`));
      await page.type('#f-email', 'ada@example.com');
      await page.type('#f-first_name', 'Ada');
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      expect(await page.$eval('[role=status]', (node) => node.textContent)).to.equal('Thanks, Ada!');

      await page.goto(formPage);
      const submitted = await page.$eval('#submissions + .table-wrap tbody', (body) => body.textContent);
      expect(submitted).to.contain('ada@example.com').and.contain('Ada');
      await Promise.all([page.waitForNavigation(), page.click('#submissions + .table-wrap tbody a')]);
      expect(page.url()).to.match(new RegExp(`/app/${workspaceId}/contacts/`));

      // Enter in an input saves (the form's first button), never moves or removes a field.
      await page.goto(`${formPage}/edit`);
      expect(await page.$eval('.form-editor button[hidden]', (b) => getComputedStyle(b).display)).to.equal(
        'none',
      );
      await page.click('#form-name', { count: 3 });
      await page.type('#form-name', 'Early access (beta)');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      expect(await page.$eval('main', (el) => el.textContent)).to.contain('Form saved.');
      const saved = (await client.get(`/api/workspaces/${workspaceId}/forms/${form.id}`)).body;
      expect(saved.name).to.equal('Early access (beta)');
      expect(saved.fields.map((f: { key: string }) => f.key)).to.deep.equal(['email', 'first_name']);
    } finally {
      await close();
    }
  });
});
