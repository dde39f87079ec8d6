// The forms pages over HTTP: the list (fields, double opt-in, submissions over 30 days, the hosted
// link), the editor that adds, removes and reorders fields with JavaScript off (each button posts
// the form and gets it back changed), saving through the API's schema and service with refusals
// beside the input they name, a form's page with its hosted link, embed snippet and submissions
// (keyset pages, each with its contact), delete behind a typed confirmation; CSRF, roles as the
// API has them (any member may write forms), other workspaces' forms as 404, hostile data inert.
import { expect } from 'chai';
import type { Client } from '../support/client.ts';
import {
  type ConsoleResponse,
  consolePage,
  expectInert,
  followRedirect,
  postConsoleForm,
} from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { server, startSecondWeb } from '../support/server.ts';
import { makeForm, submitForm } from './support.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

/** The editor's inputs as the page holds them, to post back as a browser would. */
function editorFields(page: ConsoleResponse): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of page.text.matchAll(/<input id="[^"]*" name="([^"]+)" value="([^"]*)"/g))
    fields[name!] = decode(value!);
  for (const [, name, value] of page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    fields[name!] = decode(value!);
  for (const [, name, body] of page.text.matchAll(
    /<select id="[^"]*" name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g,
  ))
    fields[name!] = /<option value="([^"]*)" selected>/.exec(body!)?.[1] ?? '';
  for (const [, name] of page.text.matchAll(/<input type="checkbox" name="([^"]+)" value="yes" checked>/g))
    fields[name!] = 'yes';
  const success = /<textarea id="form-success" name="successMessage"[^>]*>([\s\S]*?)<\/textarea>/.exec(
    page.text,
  );
  fields.successMessage = decode(success?.[1] ?? '');
  return fields;
}

function decode(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}

/** The labels of the editor's fields, in order. */
const labels = (page: ConsoleResponse) =>
  [...page.text.matchAll(/name="field\.(\d+)\.label" value="([^"]*)"/g)].map((m) => decode(m[2]!));

async function formsOf(client: Client, workspaceId: string) {
  return (await client.get(`/api/workspaces/${workspaceId}/forms`)).body as {
    id: string;
    name: string;
    fields: { key: string; label: string; type: string; required: boolean; mapTo?: unknown }[];
    doubleOptIn: boolean;
    successMessage: string | null;
    redirectUrl: string | null;
  }[];
}

describe('forms: console pages', function () {
  this.timeout(60_000);

  it('builds a form with JavaScript off: add, fill in, reorder, remove, then create', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    const empty = await consolePage(client, `${app}/forms`);
    expect(empty.text).to.contain('No forms yet');
    const blank = await consolePage(client, `${app}/forms/new`);
    expect(labels(blank)).to.deep.equal(['Email']);
    // The first button of the form is the (hidden) save: pressing Enter saves, never moves a field.
    expect(blank.text).to.match(
      /<form method="post"[^>]*>\s*<input type="hidden" name="_csrf"[^>]*>\s*<button type="submit" name="op" value="save" hidden/,
    );

    let page = await postConsoleForm(client, `${app}/forms/new`, {
      ...editorFields(blank),
      name: 'Newsletter',
      op: 'add',
    });
    expect(page.status).to.equal(200);
    let state = { ...page, token: blank.token };
    expect(labels(state)).to.deep.equal(['Email', '']);
    expect(state.text).to.contain('value="Newsletter"');
    const twice = { ...editorFields(state), 'field.1.label': 'First name', 'field.1.mapTo': 'firstName' };
    page = await postConsoleForm(client, `${app}/forms/new`, { ...twice, op: 'add' });
    state = { ...page, token: blank.token };
    const filled = {
      ...editorFields(state),
      'field.2.label': 'Company',
      'field.2.key': '',
      'field.2.mapTo': 'attribute',
      'field.2.required': 'yes',
    };
    page = await postConsoleForm(client, `${app}/forms/new`, { ...filled, op: 'up:2' });
    state = { ...page, token: blank.token };
    expect(labels(state)).to.deep.equal(['Email', 'Company', 'First name']);
    page = await postConsoleForm(client, `${app}/forms/new`, { ...editorFields(state), op: 'down:0' });
    state = { ...page, token: blank.token };
    expect(labels(state)).to.deep.equal(['Company', 'Email', 'First name']);
    // Up on the first field and an unknown button change nothing; nothing is saved meanwhile.
    page = await postConsoleForm(client, `${app}/forms/new`, { ...editorFields(state), op: 'up:0' });
    expect(labels({ ...page, token: '' })).to.deep.equal(['Company', 'Email', 'First name']);
    expect(await formsOf(client, workspaceId)).to.deep.equal([]);
    page = await postConsoleForm(client, `${app}/forms/new`, { ...editorFields(state), op: 'remove:2' });
    state = { ...page, token: blank.token };
    expect(labels(state)).to.deep.equal(['Company', 'Email']);

    const created = await postConsoleForm(client, `${app}/forms/new`, {
      ...editorFields(state),
      doubleOptIn: 'yes',
      successMessage: 'Thanks, {{ email }}!',
      op: 'save',
    });
    const formPage = await followRedirect(client, created);
    expect(formPage.text).to.contain('Form created.');
    const [form] = await formsOf(client, workspaceId);
    expect(form).to.include({
      name: 'Newsletter',
      doubleOptIn: true,
      successMessage: 'Thanks, {{ email }}!',
    });
    expect(form!.fields).to.deep.equal([
      { key: 'company', label: 'Company', type: 'text', required: true, mapTo: { attribute: 'company' } },
      { key: 'email', label: 'Email', type: 'email', required: true, mapTo: { contactField: 'email' } },
    ]);
    expect(created.headers.get('location')).to.equal(`${app}/forms/${form!.id}`);

    const list = await consolePage(client, `${app}/forms`);
    const row = /<tr><td><a href="[^"]*">Newsletter<\/a><\/td>([\s\S]*?)<\/tr>/.exec(list.text)?.[1] ?? '';
    expect(row).to.contain('<td class="num">2</td>');
    expect(row).to.contain('badge-info">on');
    expect(row).to.contain(
      `data-copy="${(await client.get(`/api/workspaces/${workspaceId}/forms/${form!.id}`)).body.hostedUrl}"`,
    );
  });

  it('shows what the API refuses beside the input it names, keeps what was typed, and saves nothing', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    const blank = await consolePage(client, `${app}/forms/new`);
    const refused = await postConsoleForm(client, `${app}/forms/new`, {
      ...editorFields(blank),
      name: 'Sign-up',
      fieldCount: '2',
      'field.1.key': 'email',
      'field.1.label': ' ',
      'field.1.type': 'text',
      'field.1.mapTo': '',
      redirectUrl: 'javascript:alert(1)',
      successMessage: 'Hi {% if %}',
      op: 'save',
    });
    expect(refused.status).to.equal(400);
    const text = refused.text;
    expect(text).to.match(
      /<input id="field-1-label" name="field\.1\.label" value=" "[^>]* aria-invalid="true" aria-describedby="field-1-label-error">/,
    );
    expect(text).to.match(/<p class="field-error" id="field-1-label-error">is required<\/p>/);
    expect(text).to.match(/<p class="field-error" id="field-1-key-error">is used twice<\/p>/);
    expect(text).to.match(/id="form-redirect-error">must be an http:\/\/ or https:\/\/ URL</);
    expect(text).to.match(/id="form-success"[^>]*aria-invalid="true"/);
    expect(text).to.contain('<li>Field 2, label: is required</li>');
    expect(text).to.contain('value="Sign-up"');
    expect(text).to.contain('value="javascript:alert(1)"');
    expectInert(text);
    expect(await formsOf(client, workspaceId)).to.deep.equal([]);

    // A form without its email field: the list as a whole is refused, said above the fields.
    const noEmail = await postConsoleForm(client, `${app}/forms/new`, {
      _csrf: blank.token,
      name: 'No email',
      fieldCount: '1',
      'field.0.label': 'Name',
      'field.0.type': 'text',
      op: 'save',
    });
    expect(noEmail.status).to.equal(400);
    expect(noEmail.text).to.match(
      /<p class="field-error" id="form-fields-error">must hold exactly one required field of type email/,
    );
    expect(await formsOf(client, workspaceId)).to.deep.equal([]);
  });

  it('edits a form: its values in the editor, saved through the service, and audited', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const form = await makeForm(client, api, { redirectUrl: 'https://example.com/thanks' });
    const path = `/app/${workspaceId}/forms/${form.id}`;
    const edit = await consolePage(client, `${path}/edit`);
    expect(labels(edit)).to.deep.equal([
      'Email',
      'First name',
      'Company',
      'I agree to receive the newsletter',
      'Source',
    ]);
    expect(edit.text).to.contain('value="https://example.com/thanks"');
    const fields = editorFields(edit);
    expect(fields).to.include({
      'field.2.mapTo': 'attribute',
      'field.2.attribute': 'company',
      'field.4.value': 'footer',
    });
    const saved = await postConsoleForm(client, `${path}/edit`, {
      ...fields,
      name: 'Newsletter (footer)',
      'field.1.required': 'yes',
      redirectUrl: '',
      doubleOptIn: 'yes',
      op: 'save',
    });
    expect((await followRedirect(client, saved)).text).to.contain('Form saved.');
    const after = (await client.get(`${api}/forms/${form.id}`)).body;
    expect(after).to.include({ name: 'Newsletter (footer)', redirectUrl: null, doubleOptIn: true });
    expect(after.successMessage).to.equal('Thanks! You are on the list.');
    expect(after.fields[1]).to.deep.include({ key: 'firstName', required: true });
    expect(after.fields[4]).to.deep.equal({
      key: 'source',
      label: 'Source',
      type: 'hidden',
      required: false,
      value: 'footer',
    });
    const audit = (await client.get(`${api}/audit?action=form.updated`)).body;
    expect(audit.map((entry: { target: { id: string } }) => entry.target.id)).to.include(form.id);
  });

  it("shows a form's hosted link, embed snippet and submissions, newest first by keyset, with their contact", async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const form = await makeForm(client, api, {
      fields: [
        { key: 'email', label: 'Email', type: 'email', required: true, mapTo: { contactField: 'email' } },
      ],
    });
    const path = `/app/${workspaceId}/forms/${form.id}`;
    const hosted = await fetch(`${server().baseUrl}/f/${form.id}`);
    expect(hosted.status).to.equal(200);
    expect(await hosted.text()).to.contain('<label for="f-email">Email');
    for (let i = 0; i < 51; i++) {
      const sent = await submitForm(form.id, new URLSearchParams({ email: `p${i}@example.com` }).toString(), {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(sent.status, await sent.text()).to.be.oneOf([200, 303]);
    }
    const page = await consolePage(client, path);
    expect(page.text).to.contain(`data-copy="${form.hostedUrl}"`);
    // The test server has no PUBLIC_URL: the page says why the link is this machine's own.
    expect(page.text).to.contain('id="public-url-note"');
    expect(page.text).to.contain(`These links start with ${new URL(form.hostedUrl).origin} because`);
    const snippet = `<iframe src="${form.hostedUrl}" title="Newsletter" width="100%" height="210" style="border:0" loading="lazy"></iframe>`;
    // Shown as text (escaped once more), copied as HTML.
    expect(page.text).to.contain(
      `data-copy="${snippet.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')}"`,
    );
    const newest = (await client.get(`${api}/forms/${form.id}/submissions?limit=1`)).body.data[0];
    expect(page.text.indexOf('p50@example.com')).to.be.greaterThan(-1);
    expect(page.text).to.contain(
      `<a href="/app/${workspaceId}/contacts/${newest.contactId}">p50@example.com</a>`,
    );
    expect(page.text).to.not.contain('>p0@example.com<');
    const next = /<a href="([^"]+)" rel="next">/.exec(page.text)?.[1];
    expect(next).to.match(/\?after=/);
    const second = await consolePage(client, decode(next!));
    expect(second.text).to.contain('>p0@example.com<').and.not.contain('>p1@example.com<');
    expect(second.text).to.not.contain('rel="next"');

    const list = await consolePage(client, `/app/${workspaceId}/forms`);
    expect(list.text).to.match(
      />Newsletter<\/a><\/td><td class="num">1<\/td><td><span class="badge badge-neutral">off<\/span><\/td><td class="num">51<\/td>/,
    );
  });

  it('deletes a form only once its name is typed', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const form = await makeForm(client, api);
    const path = `/app/${workspaceId}/forms/${form.id}`;
    const confirm = await consolePage(client, `${path}/delete`);
    expect(confirm.text).to.contain('all its submissions are deleted');
    const wrong = await postConsoleForm(client, `${path}/delete`, {
      _csrf: confirm.token,
      _back: `${path}/delete`,
      confirmName: 'newsletter',
    });
    expect((await followRedirect(client, wrong)).text)
      .to.contain('flash-error')
      .and.contain('must be the form’s name');
    expect((await client.get(`${api}/forms/${form.id}`)).status).to.equal(200);
    const deleted = await postConsoleForm(client, `${path}/delete`, {
      _csrf: confirm.token,
      confirmName: 'Newsletter',
    });
    expect((await followRedirect(client, deleted)).text).to.contain('Form “Newsletter” deleted.');
    expect((await client.get(`${api}/forms/${form.id}`)).status).to.equal(404);
    expect((await fetch(`${server().baseUrl}/f/${form.id}`)).status).to.equal(404);
  });

  it('keeps hostile names and labels inert on every page', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const form = await makeForm(client, api, {
      name: HOSTILE,
      fields: [
        { key: 'email', label: HOSTILE, type: 'email', required: true, mapTo: { contactField: 'email' } },
        { key: 'site', label: 'javascript:alert(3)', type: 'text', value: '"><img src=x onerror=alert(4)>' },
      ],
      successMessage: HOSTILE,
    });
    const sent = await submitForm(
      form.id,
      new URLSearchParams({ email: 'x@example.com', site: HOSTILE }).toString(),
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    expect(sent.status).to.be.oneOf([200, 303]);
    const app = `/app/${workspaceId}/forms`;
    for (const path of [app, `${app}/${form.id}`, `${app}/${form.id}/edit`, `${app}/${form.id}/delete`]) {
      const page = await consolePage(client, path);
      expectInert(page.text, path);
      expect(page.text).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('refuses a form without its CSRF token; lets a MEMBER write forms as the API does', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}/forms`;
    const blank = await consolePage(client, `${app}/new`);
    const forged = await postConsoleForm(client, `${app}/new`, {
      ...editorFields(blank),
      _csrf: 'x'.repeat(32),
      name: 'Forged',
      op: 'save',
    });
    expect(forged.status).to.equal(403);
    const noToken = await postConsoleForm(client, `${app}/new`, {
      name: 'Forged',
      fieldCount: '0',
      op: 'save',
    });
    expect(noToken.status).to.equal(403);
    expect(await formsOf(client, workspaceId)).to.deep.equal([]);

    // Forms: create, update, delete are open to any member (docs/guides/accounts-and-keys.md).
    const { client: member } = await memberOf(client, workspaceId, 'MEMBER');
    const list = await consolePage(member, app);
    expect(list.text).to.contain(`href="${app}/new"`);
    const memberBlank = await consolePage(member, `${app}/new`);
    const made = await postConsoleForm(member, `${app}/new`, {
      ...editorFields(memberBlank),
      name: 'By a member',
      op: 'save',
    });
    expect((await followRedirect(member, made)).text).to.contain('Form created.');
    expect((await formsOf(client, workspaceId)).map((f) => f.name)).to.deep.equal(['By a member']);
  });

  it("answers 404 for another workspace's form on every page and POST, and changes nothing", async () => {
    const mine = await workspaceWithAdmin();
    const other = await workspaceWithAdmin();
    const theirs = await makeForm(other.client, `/api/workspaces/${other.workspaceId}`);
    const path = `/app/${mine.workspaceId}/forms/${theirs.id}`;
    const list = await consolePage(mine.client, `/app/${mine.workspaceId}/forms`);
    expect(list.text).to.contain('No forms yet');
    for (const page of [path, `${path}/edit`, `${path}/delete`]) await consolePage(mine.client, page, 404);
    const edited = await postConsoleForm(mine.client, `${path}/edit`, {
      _csrf: list.token,
      name: 'Mine now',
      fieldCount: '0',
      op: 'save',
    });
    expect(edited.status).to.equal(404);
    const deleted = await postConsoleForm(mine.client, `${path}/delete`, {
      _csrf: list.token,
      confirmName: 'Newsletter',
    });
    expect(deleted.status).to.equal(404);
    const still = (await other.client.get(`/api/workspaces/${other.workspaceId}/forms/${theirs.id}`)).body;
    expect(still.name).to.equal('Newsletter');
    await consolePage(mine.client, `/app/${other.workspaceId}/forms`, 404);
  });

  it('says nothing of PUBLIC_URL where it is set, and the links start with it', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const form = await makeForm(client, `/api/workspaces/${workspaceId}`);
    const web = await startSecondWeb({ PUBLIC_URL: 'https://forms.example.org' });
    try {
      const response = await fetch(`${web.url}/app/${workspaceId}/forms/${form.id}`, {
        headers: { cookie: client.cookieHeader },
      });
      const text = await response.text();
      expect(response.status, text).to.equal(200);
      expect(text).to.contain(`data-copy="https://forms.example.org/f/${form.id}"`);
      expect(text).not.to.contain('public-url-note');
    } finally {
      await web.stop();
    }
  });
});
