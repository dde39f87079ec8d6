// Forms through the API and the hosted endpoint: CRUD with scopes, submissions in the three body
// shapes, the contact upsert, the stored event and webhook, the honeypot, invalid input storing
// nothing, the per-IP limit, and cross-origin posts with a publishable key.
import { expect } from 'chai';
import { outgoing } from '../messages/support.ts';
import { expectProblem, keyClient } from '../support/factories.ts';
import { type SecondWeb, server, startSecondWeb } from '../support/server.ts';
import { formsWorkspace, makeForm, NEWSLETTER, submitForm } from './support.ts';

const URLENCODED = { 'content-type': 'application/x-www-form-urlencoded' };

describe('forms API', () => {
  it('creates, reads, changes and deletes a form under the forms scopes', async () => {
    const { admin, client, workspaceId, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    expect(form.hostedUrl).to.match(new RegExp(`/f/${form.id}$`));
    expect((await client.get(`${base}/forms`)).body.map((f: { id: string }) => f.id)).to.deep.equal([
      form.id,
    ]);
    const changed = await client.patch(`${base}/forms/${form.id}`, {
      name: 'Weekly news',
      doubleOptIn: true,
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body).to.include({ name: 'Weekly news', doubleOptIn: true });
    const { client: reader } = await keyClient(admin, workspaceId, ['forms:read']);
    expectProblem(await reader.post(`${base}/forms`, NEWSLETTER), 403);
    expect((await client.delete(`${base}/forms/${form.id}`)).status).to.equal(204);
    expectProblem(await client.get(`${base}/forms/${form.id}`), 404);
    expect((await fetch(`${server().baseUrl}/f/${form.id}`)).status).to.equal(404);
  });

  it('refuses a form without a required email field mapped to the contact email, naming the field', async () => {
    const { client, base } = await formsWorkspace();
    const response = await client.post(`${base}/forms`, {
      name: 'Bad',
      fields: [{ key: 'name', label: 'Name', type: 'text' }],
    });
    const problem = expectProblem(response, 400) as unknown as { errors: { path: string }[] };
    expect(problem.errors[0].path).to.equal('body.fields');
  });

  it('refuses a success message that is not a valid template, naming the field, on create and change', async () => {
    const { client, base } = await formsWorkspace();
    for (const successMessage of ['Thanks, {{ first ', 'Hi {% include "secrets" %}', 'Hi {{ x | shout }}']) {
      const refused = await client.post(`${base}/forms`, { ...NEWSLETTER, successMessage });
      const problem = expectProblem(refused, 400) as unknown as {
        errors: { path: string; message: string }[];
      };
      expect(problem.errors[0].path, successMessage).to.equal('body.successMessage');
      expect(problem.errors[0].message, successMessage).to.match(/^line 1, column \d+: /);
    }
    const form = await makeForm(client, base);
    const changed = await client.patch(`${base}/forms/${form.id}`, { successMessage: '{% if %}' });
    expectProblem(changed, 400);
    expect((await client.get(`${base}/forms/${form.id}`)).body.successMessage).to.equal(
      NEWSLETTER.successMessage,
    );
  });

  it("hides another workspace's form", async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const other = await formsWorkspace();
    expectProblem(await other.client.get(`${other.base}/forms/${form.id}`), 404);
    expectProblem(await other.client.get(`${other.base}/forms/${form.id}/submissions`), 404);
  });
});

describe('form submissions', () => {
  it('upserts the contact, stores form.submitted through ingest, emits the webhook and lists the submission', async () => {
    const { client, workspaceId, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const body = new URLSearchParams({
      email: ' Grace@Example.com ',
      firstName: 'Grace',
      company: 'Navy',
      consent: 'on',
    });
    const response = await submitForm(form.id, body.toString(), URLENCODED);
    expect(response.status).to.equal(200);
    expect(await response.text()).to.include('Thanks! You are on the list.');

    const submissions = await client.get(`${base}/forms/${form.id}/submissions`);
    expect(submissions.body.total).to.equal(1);
    const [submission] = submissions.body.data;
    expect(submission.fields).to.deep.equal({
      email: 'grace@example.com',
      firstName: 'Grace',
      company: 'Navy',
      consent: true,
      source: 'footer',
    });
    const contact = await client.get(`${base}/contacts/${submission.contactId}`);
    expect(contact.body).to.include({ email: 'grace@example.com', firstName: 'Grace' });
    expect(contact.body.attributes).to.deep.equal({ company: 'Navy' });
    const events = await client.get(`${base}/events?type=form.submitted`);
    expect(events.body).to.have.length(1);
    expect(events.body[0].metadata).to.deep.equal({
      formId: form.id,
      submissionId: submission.id,
      fields: submission.fields,
    });
    expect(await outgoing(workspaceId, 'form.submitted')).to.deep.equal([
      { formId: form.id, submissionId: submission.id, fields: submission.fields },
    ]);
  });

  it('renders the success message with what was submitted, escaped on the page and plain in JSON', async () => {
    const { client, base } = await formsWorkspace();
    const fields = [
      ...NEWSLETTER.fields.filter((field) => field.key !== 'firstName'),
      { key: 'first', label: 'First name', type: 'text', mapTo: { contactField: 'firstName' } },
    ];
    const form = await makeForm(client, base, { fields, successMessage: 'Thanks, {{ first }}!' });
    const page = await submitForm(
      form.id,
      'email=t1%40example.com&consent=on&first=%3Cb%3EAnn%3C%2Fb%3E',
      URLENCODED,
    );
    expect(page.status).to.equal(200);
    expect(await page.text()).to.include('<p role="status">Thanks, &#60;b&#62;Ann&#60;/b&#62;!</p>');
    const json = await submitForm(
      form.id,
      JSON.stringify({ email: 't2@example.com', consent: true, first: 'Bo' }),
      {
        'content-type': 'application/json',
      },
    );
    expect((await json.json()).message).to.equal('Thanks, Bo!');
  });

  it('never shows what a known contact holds in the success message, only what was typed', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base, {
      successMessage:
        'Hello {{ contact.firstName | default: "friend" }} of {{ company | default: "nowhere" }}',
    });
    const known = { email: 'known@example.com', firstName: 'Secret', company: 'Hidden Co', consent: true };
    const json = { 'content-type': 'application/json' };
    expect((await (await submitForm(form.id, JSON.stringify(known), json)).json()).message).to.equal(
      'Hello Secret of Hidden Co',
    );
    const stranger = await submitForm(
      form.id,
      JSON.stringify({ email: 'known@example.com', consent: true }),
      json,
    );
    expect((await stranger.json()).message).to.equal('Hello friend of nowhere');
  });

  it('marks every required input on the hosted page, a checkbox too', async () => {
    const { client, base } = await formsWorkspace();
    const fields = [
      ...NEWSLETTER.fields,
      { key: 'terms', label: 'I accept the terms', type: 'checkbox', required: false },
    ];
    const form = await makeForm(client, base, { fields });
    const html = await (await fetch(`${server().baseUrl}/f/${form.id}`)).text();
    expect(html).to.include(
      '<label for="f-consent">I agree to receive the newsletter <span aria-hidden="true">*</span></label>',
    );
    expect(html).to.include('<label for="f-terms">I accept the terms</label>');
    expect(html).to.include('<label for="f-email">Email <span aria-hidden="true">*</span></label>');
  });

  it('fills in what a known contact lacks and never overwrites it', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const first = { email: 'ada@example.com', firstName: 'Ada', company: 'Engines', consent: true };
    expect(
      (await submitForm(form.id, JSON.stringify(first), { 'content-type': 'application/json' })).status,
    ).to.equal(201);
    const second = { email: 'ada@example.com', firstName: 'Eve', company: 'Evil', consent: true };
    const answer = await submitForm(form.id, JSON.stringify(second), { 'content-type': 'application/json' });
    expect(answer.status).to.equal(201);
    const { submissionId } = await answer.json();
    const submissions = await client.get(`${base}/forms/${form.id}/submissions`);
    expect(submissions.body.data[0].id).to.equal(submissionId);
    const contact = await client.get(`${base}/contacts/${submissions.body.data[0].contactId}`);
    expect(contact.body.firstName).to.equal('Ada');
    expect(contact.body.attributes).to.deep.equal({ company: 'Engines' });
  });

  it('erases what a person typed into forms when the contact is erased', async () => {
    const { admin, client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    await submitForm(form.id, 'email=erase%40example.com&consent=on', URLENCODED);
    const [submission] = (await client.get(`${base}/forms/${form.id}/submissions`)).body.data;
    expect((await admin.delete(`${base}/contacts/${submission.contactId}`)).status).to.equal(204);
    expect((await client.get(`${base}/forms/${form.id}/submissions`)).body.total).to.equal(0);
  });

  it('takes multipart bodies', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const data = new FormData();
    data.set('email', 'multi@example.com');
    data.set('consent', 'on');
    const response = await submitForm(form.id, data, { accept: 'application/json' });
    expect(response.status).to.equal(201);
    expect((await response.json()).confirmation).to.equal('none');
    expect((await client.get(`${base}/forms/${form.id}/submissions`)).body.total).to.equal(1);
  });

  it('answers invalid JSON input with 400 problem+json naming each field, storing nothing', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const response = await submitForm(form.id, JSON.stringify({ email: 'not-an-email', nickname: 'x' }), {
      'content-type': 'application/json',
    });
    expect(response.status).to.equal(400);
    expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
    const problem = await response.json();
    expect(problem.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal([
      'body.consent',
      'body.email',
      'body.nickname',
    ]);
    expect((await client.get(`${base}/forms/${form.id}/submissions`)).body.total).to.equal(0);
    expect((await client.get(`${base}/contacts`)).body.total).to.equal(0);
  });

  it('re-renders the hosted form with the errors for a browser, keeping what was typed', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const response = await submitForm(form.id, 'email=grace%40&firstName=Grace', URLENCODED);
    expect(response.status).to.equal(400);
    const html = await response.text();
    expect(html).to.include('role="alert"');
    expect(html).to.include('Email must be an email address');
    expect(html).to.include('value="Grace"');
    expect(html).to.match(/id="f-email"[^>]*aria-invalid="true"/);
    expect((await client.get(`${base}/forms/${form.id}/submissions`)).body.total).to.equal(0);
  });

  it('pretends to accept what fills the honeypot, and stores nothing', async () => {
    const { client, workspaceId, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const body = new URLSearchParams({
      email: 'bot@example.com',
      consent: 'on',
      hp_website: 'http://spam.example',
    });
    const response = await submitForm(form.id, body.toString(), URLENCODED);
    expect(response.status).to.equal(200);
    expect(await response.text()).to.include('Thanks! You are on the list.');
    expect((await client.get(`${base}/forms/${form.id}/submissions`)).body.total).to.equal(0);
    expect((await client.get(`${base}/contacts`)).body.total).to.equal(0);
    expect(await outgoing(workspaceId, 'form.submitted')).to.deep.equal([]);
  });

  it('redirects a browser to the form’s redirect URL after a submission', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base, { redirectUrl: 'https://www.example.com/thanks' });
    const response = await submitForm(form.id, 'email=r%40example.com&consent=on', URLENCODED);
    expect(response.status).to.equal(303);
    expect(response.headers.get('location')).to.equal('https://www.example.com/thanks');
  });

  it('answers 404 for an unknown form and 415 for another body type', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    expect(
      (await submitForm('frm_01JD2Z3K4M5N6P7Q8R9S0T1V2W', 'email=a%40b.co', URLENCODED)).status,
    ).to.equal(404);
    const text = await submitForm(form.id, 'hello', {
      'content-type': 'text/plain',
      accept: 'application/json',
    });
    expect(text.status).to.equal(415);
  });
});

describe('form submissions: limits and other origins', () => {
  let web: SecondWeb;
  before(async () => {
    // Windows are fixed on the clock: an hour's end, unlike a minute's, is rarely crossed mid-test.
    web = await startSecondWeb({
      FORM_RATE_LIMIT_PER_IP: 2,
      PUBLIC_RATE_WINDOW_MS: 3_600_000,
      trustProxy: true,
    });
  });
  after(() => web.stop());

  it('limits submissions per client address, with Retry-After', async () => {
    const { client, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const from = { ...URLENCODED, 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250)}` };
    const body = (n: number) => `email=limit${n}%40example.com&consent=on`;
    expect((await submitForm(form.id, body(1), from, web.url)).status).to.equal(200);
    expect((await submitForm(form.id, body(2), from, web.url)).status).to.equal(200);
    const limited = await submitForm(form.id, body(3), from, web.url);
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    const elsewhere = { ...from, 'x-forwarded-for': '203.0.113.77' };
    expect((await submitForm(form.id, body(4), elsewhere, web.url)).status).to.equal(200);
    expect((await client.get(`${base}/forms/${form.id}/submissions`)).body.total).to.equal(3);
  });

  it('takes a post from another origin only with a publishable key listing it, answering CORS', async () => {
    const { admin, client, workspaceId, base } = await formsWorkspace();
    const form = await makeForm(client, base);
    const origin = 'https://landing.example.com';
    const key = await admin.post(`/api/workspaces/${workspaceId}/publishable-keys`, {
      name: 'Landing',
      allowedOrigins: [origin],
    });
    const json = { 'content-type': 'application/json', origin };
    const payload = JSON.stringify({ email: 'cors@example.com', consent: true });
    const withoutKey = await submitForm(form.id, payload, json);
    expect(withoutKey.status).to.equal(401);
    const withKey = await submitForm(form.id, payload, { ...json, 'x-publishable-key': key.body.key });
    expect(withKey.status).to.equal(201);
    expect(withKey.headers.get('access-control-allow-origin')).to.equal(origin);
    const otherOrigin = await submitForm(form.id, payload, {
      ...json,
      origin: 'https://evil.example.net',
      'x-publishable-key': key.body.key,
    });
    expect(otherOrigin.status).to.equal(403);
    expect(otherOrigin.headers.get('access-control-allow-origin')).to.equal(null);
    const other = await formsWorkspace();
    const otherForm = await makeForm(other.client, other.base);
    const wrongWorkspace = await submitForm(otherForm.id, payload, {
      ...json,
      'x-publishable-key': key.body.key,
    });
    expect(wrongWorkspace.status).to.equal(401);
    const preflight = (from: string) =>
      fetch(`${web.url}/f/${form.id}?key=${key.body.key}`, {
        method: 'OPTIONS',
        headers: { origin: from, 'access-control-request-method': 'POST' },
      });
    expect((await preflight(origin)).headers.get('access-control-allow-origin')).to.equal(origin);
    expect((await preflight('https://evil.example.net')).status).to.equal(403);
    expect((await client.get(`${base}/forms/${form.id}/submissions`)).body.total).to.equal(1);
  });
});
