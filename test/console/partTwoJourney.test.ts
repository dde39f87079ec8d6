// Part two of the console walked as one person would, in one Chromium page: a broadcast with a
// branch and a split built in the builder, its send step written in the template editor and
// previewed for a contact, a test sent, its audience read with the reasons, activated through the
// confirmation and followed to the finish, a sent message opened (its body in the sandboxed frame,
// its timeline, a click and an open made from the mail as a mail client makes them), the reports
// read, a form built and submitted from its hosted page, a CSV imported. Then every page of part
// two again with JavaScript off (it works, its forms submit, and it passes axe), and hostile data
// on each of them, in a second workspace of the same person made meanwhile (no script runs, no
// dialog opens, the page holds no markup of it, the text shows as typed, frames are sandboxed
// without allow-scripts). The console's CSP would stop an injected inline script anyway: the
// markup check (expectInert) is what catches an escape that went missing.
//
// The `it`s share the workspace and the page, in order: each is a stretch of the same walk.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { ElementHandle, Page } from 'puppeteer-core';
import { setSubscription } from '../../src/messages/index.ts';
import { createCampaign, emailChannel } from '../campaigns/support.ts';
import { createContact } from '../events/support.ts';
import { type Sink, suiteSink } from '../messages/support.ts';
import { createSegment } from '../segments/helpers.ts';
import { suiteChromium } from '../support/browser.ts';
import type { Client } from '../support/client.ts';
import { expectAccessible, expectInert, isolatedPage, signInBrowser, url } from '../support/console.ts';
import { eventually, expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { CHROME, classifiedHits, hit, sentAMinuteAgo, trackingOf } from '../tracking/support.ts';

/** Set on the window by any payload below that runs: it must stay unset. */
const FLAG = '__pwned';
const HOSTILE = `<script>window.${FLAG}=1</script>"><img src=x onerror="window.${FLAG}=2">`;
const JS_URL = `javascript:window.${FLAG}=3`;

const field = (name: string) => `[id="${name}"]`;
const directory = mkdtempSync(path.join(tmpdir(), 'switchboard-journey-'));

function csvFile(name: string, content: string): string {
  const file = path.join(directory, name);
  writeFileSync(file, content);
  return file;
}

const csvCell = (value: string) => `"${value.replaceAll('"', '""')}"`;

/** Clicks and waits for the page the click leads to; answers its response. */
async function follow(page: Page, selector: string) {
  const [response] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
  return response;
}

/** A builder button that changes the draft: with JavaScript, htmx swaps the builder alone. */
async function press(page: Page, action: string) {
  await page.$eval('#campaign-builder', (el) => el.setAttribute('data-before', ''));
  await page.click(`button[name="action"][value="${action}"]`);
  await page.waitForFunction(() => !document.querySelector('#campaign-builder[data-before]'));
}

/** Replaces what an input holds by typing, as a person selecting it all and typing over. */
async function typeOver(page: Page, selector: string, text: string) {
  await page.$eval(selector, (el) => {
    (el as HTMLInputElement).value = '';
  });
  await page.type(selector, text);
}

const mainText = (page: Page) => page.$eval('main', (el) => el.textContent ?? '');

/** The cells of the first table row of main whose first cell starts with `label`. */
function rowOf(page: Page, label: string): Promise<string[] | undefined> {
  return page.$$eval(
    'main tr',
    (rows, wanted) =>
      rows
        .map((row) => [...row.children].map((cell) => (cell.textContent ?? '').trim()))
        .find((cells) => cells[0]?.startsWith(wanted as string)),
    label,
  );
}

/** The href of the first link of main whose text is `text`. */
async function linkTo(page: Page, text: string): Promise<string> {
  const href = await page.$$eval(
    'main a',
    (links, wanted) => links.find((a) => a.textContent?.trim() === wanted)?.getAttribute('href'),
    text,
  );
  expect(href, `a link “${text}”`).to.be.a('string');
  return href!;
}

/** Reloads the page until `ready` holds for it (figures the worker counts a moment later). */
async function reloadUntil(page: Page, ready: () => Promise<boolean>, timeoutMs = 20_000) {
  await eventually(async () => {
    if (await ready()) return true;
    await page.reload();
    return false;
  }, timeoutMs);
}

const frameTexts = (page: Page) =>
  Promise.all(
    page
      .frames()
      .filter((frame) => frame !== page.mainFrame())
      .map((frame) => frame.evaluate(() => document.body?.textContent ?? '')),
  );

const HOSTILE_LINK = `https://example.com/?q="><script>window.${FLAG}=5</script>`;
const asAttribute = (value: string) =>
  value.replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * A second workspace of the same person holding hostile data, made through the API while the walk
 * goes on (it waits on the worker): a contact, a segment, a broadcast whose template, subject,
 * preheader and link URLs are hostile, sent, and its hostile link clicked; a form with hostile
 * labels, hidden value and success message, a javascript: redirect refused.
 */
async function hostileWorkspace(client: Client, sink: Sink) {
  // A plain name: the pages' own text, not the switcher's, must show each hostile value.
  const created = await client.post('/api/workspaces', { name: 'Hostile Co' });
  expect(created.status, created.text).to.equal(201);
  const workspaceId = created.body.id as string;
  const api = `/api/workspaces/${workspaceId}`;
  await emailChannel(client, api, sink.port);
  const contact = await createContact(client, api, {
    email: 'mallory@journey.test',
    firstName: HOSTILE,
    attributes: { hostile: true },
  });
  const segment = await createSegment(client, api, { attribute: 'hostile', op: 'eq', value: true }, HOSTILE);
  const campaign = await createCampaign(client, api, {
    name: HOSTILE,
    trigger: { type: 'broadcast', segmentId: segment.id },
    steps: [
      {
        type: 'send',
        channel: 'email',
        subject: `${HOSTILE} {{ contact.firstName }}`,
        preheader: HOSTILE,
        body:
          `<p>{{ contact.firstName }}</p><p>{{ "<script>window.${FLAG}=4</script>" }}</p>` +
          `<a id="js" href="${JS_URL}">js</a><a id="hostile" href="${asAttribute(HOSTILE_LINK)}">link</a>${HOSTILE}`,
      },
    ],
  });
  const activated = await client.post(`${api}/campaigns/${campaign.id}/activate`);
  expect(activated.status, activated.text).to.equal(200);
  const message = await eventually(async () => {
    const list = await client.get(`${api}/messages?contactId=${contact.id}&status=sent`);
    return list.body.data[0] as { id: string } | undefined;
  }, 20_000);
  const mail = await eventually(async () =>
    (await sink.received()).find((m) => m.headers['x-switchboard-message-id'] === message.id),
  );
  await sentAMinuteAgo(message.id);
  const tracked = trackingOf(String(mail.mail.html)).links.get('hostile');
  expect(tracked, 'the hostile link, tracked').to.be.a('string');
  expect((await hit(tracked!)).status).to.equal(302);
  await classifiedHits(client, api, message.id, 1);

  const form = await client.post(`${api}/forms`, {
    name: HOSTILE,
    fields: [
      { key: 'email', label: HOSTILE, type: 'email', required: true, mapTo: { contactField: 'email' } },
      { key: 'first_name', label: JS_URL, type: 'text', mapTo: { contactField: 'firstName' } },
      { key: 'site', label: 'Site', type: 'hidden', value: HOSTILE },
    ],
    successMessage: `${HOSTILE} {{ first_name }}`,
  });
  expect(form.status, form.text).to.equal(201);
  const formId = form.body.id as string;
  expectProblem(await client.patch(`${api}/forms/${formId}`, { redirectUrl: JS_URL }), 400);
  return {
    workspaceId,
    client,
    contactId: contact.id as string,
    campaignId: campaign.id as string,
    messageId: message.id,
    formId,
  };
}

describe('console part two: one person’s journey in a browser', function () {
  this.timeout(240_000);
  const chromium = suiteChromium();
  const sink = suiteSink();
  let page: Page;
  let hostile: ReturnType<typeof hostileWorkspace>;
  const dialogs: string[] = [];
  const state = {} as {
    workspaceId: string;
    client: Client;
    ada: string;
    campaignId: string;
    messagePath: string;
    formId: string;
    importPath: string;
  };
  const app = () => `/app/${state.workspaceId}`;
  const api = () => `/api/workspaces/${state.workspaceId}`;
  const campaignPath = () => `${app()}/campaigns/${state.campaignId}`;

  before(async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Journey Co');
    Object.assign(state, { client, workspaceId });
    await emailChannel(client, api(), sink.port);
    const vip = { vip: true };
    const ada = await createContact(client, api(), {
      email: 'ada@journey.test',
      firstName: 'Ada',
      attributes: vip,
    });
    state.ada = ada.id;
    await createContact(client, api(), { email: 'bob@journey.test', firstName: 'Bob', attributes: vip });
    const carol = await createContact(client, api(), { email: 'carol@journey.test', attributes: vip });
    const unsubscribed = await client.put(`${api()}/contacts/${carol.id}/subscriptions`, {
      subscriptions: [{ channel: 'email', status: 'unsubscribed' }],
    });
    expect(unsubscribed.status, unsubscribed.text).to.equal(200);
    // As a hard bounce of an earlier send leaves it (test/messages has the bounce itself).
    const dave = await createContact(client, api(), { email: 'dave@journey.test', attributes: vip });
    await setSubscription(server().context.db, workspaceId, dave.id, {
      channel: 'email',
      status: 'unsubscribed',
      reason: 'hard_bounce',
      messageId: null,
    });
    await createSegment(client, api(), { attribute: 'vip', op: 'eq', value: true }, 'VIPs');
    hostile = hostileWorkspace(client, sink);
    hostile.catch(() => {}); // its failure fails the last stretch, which awaits it
    // Closed with the browser, after the last stretch of the walk.
    ({ page } = await isolatedPage(chromium.browser));
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    await signInBrowser(page, user.email, `${app()}/campaigns`);
  });

  it('builds a broadcast with a branch and a split in the builder, and saves it', async () => {
    expect(page.url()).to.equal(url(`${app()}/campaigns`));
    await follow(page, 'a[href$="/campaigns/new/form"]');
    await page.type(field('name'), 'Spring news');
    await page.click(field('trigger.type-broadcast'));
    const segment = await page.$$eval(
      `${field('trigger.segmentId')} option`,
      (options) => options.find((o) => o.textContent === 'VIPs')?.getAttribute('value') ?? '',
    );
    await page.select(field('trigger.segmentId'), segment);
    await press(page, 'add:steps@0:send');
    await page.type(field('steps[0].subject'), 'Spring is here');
    await page.type(field('steps[0].body'), '<p>Hi</p>');
    await press(page, 'add:steps@1:branch');
    await page.type(field('steps[1].if.event'), 'purchase');
    await press(page, 'add:steps[1].then@0:exit');
    await press(page, 'add:steps@2:split');
    await press(page, 'add:steps[2].paths[0].steps@0:exit');
    await follow(page, 'button[name="action"][value="save"]');
    expect(await mainText(page)).to.contain('Draft campaign created.');
    state.campaignId = /\/campaigns\/([^/?#]+)$/.exec(page.url())![1]!;
    const drawn = await page.$$eval('svg.flow g.flow-step', (boxes) =>
      boxes.map((box) => box.getAttribute('data-step')),
    );
    expect(drawn).to.include.members(['0', '1', '1.then.0', '2', '2.paths.0.0']);
    const saved = (await state.client.get(`${api()}/campaigns/${state.campaignId}`)).body;
    expect(saved.trigger).to.include({ type: 'broadcast', segmentId: segment });
    expect(saved.steps.map((s: { type: string }) => s.type)).to.deep.equal(['send', 'branch', 'split']);
  });

  it('writes the send step with Liquid, previews it for a contact, saves it and sends a test', async () => {
    await follow(page, 'a[href$="/steps/0/template"]');
    await page.type('#contact-q', 'ada@journey');
    await follow(page, '.template-picker button[type="submit"]');
    await follow(page, '.template-contacts a');
    await typeOver(page, '#field-subject', 'Hello {{ contact.firstName }}');
    await typeOver(
      page,
      '#field-body',
      '<p>Hi {{ contact.firstName | upcase }}</p><p><a id="offer" href="https://example.com/offer">See the offer</a></p>',
    );
    await page.waitForFunction(
      () => document.querySelector('#template-preview dd')?.textContent === 'Hello Ada',
      { timeout: 10_000 },
    );
    await page.waitForFunction(() => document.querySelectorAll('#template-preview iframe').length === 2);
    await eventually(async () => (await frameTexts(page)).every((text) => text.includes('Hi ADA')));
    await follow(page, 'button[name="action"][value="save"]');
    expect(await mainText(page)).to.contain('Template saved.');

    await page.type('#test-to', 'tester@journey.test');
    await follow(page, 'form[action$="/template/test"] button');
    expect(await mainText(page)).to.contain('Test sent to tester@journey.test');
    const test = await eventually(async () =>
      (await sink.received()).find((m) => m.to.includes('tester@journey.test')),
    );
    expect(test.mail.subject).to.equal('[Test] Hello Ada');
    expect(String(test.mail.html)).to.contain('Hi ADA');
  });

  it('shows the broadcast’s audience: whom it reaches, and the others by reason', async () => {
    await follow(page, `a[href="${campaignPath()}"]`);
    await follow(page, `a[href="${campaignPath()}/audience"]`);
    expect(await mainText(page)).to.match(/It will reach\s*2 \(50\.0 %\)/);
    expect((await rowOf(page, 'Unsubscribed from the channel'))?.slice(1)).to.deep.equal([
      '1',
      'carol@journey.test',
    ]);
    expect((await rowOf(page, 'A hard bounce'))?.slice(1)).to.deep.equal(['1', 'dave@journey.test']);
    expect((await rowOf(page, 'No address on the channel'))?.[1]).to.equal('0');
  });

  it('activates it through the confirmation and follows its progress to the finish', async () => {
    await follow(page, `a[href="${campaignPath()}/activate"]`);
    await follow(page, 'main form button[type="submit"]');
    expect(page.url()).to.equal(url(`${campaignPath()}/progress`));
    await page.waitForFunction(
      () => document.querySelector('.progress-figures')?.textContent?.includes('finished'),
      { timeout: 40_000 },
    );
    const figures = await page.$eval('.progress-figures', (el) => el.textContent ?? '');
    expect(figures).to.match(/Sent\s*2 \(/);
    expect(figures).to.match(/0 failed · 0 bounced · 2 suppressed/);
  });

  it('opens a sent message: its body in a frame that runs nothing, its timeline, and the hits a mail client makes', async () => {
    await follow(page, `nav a[href="${app()}/messages"]`);
    const statuses = await page.$$eval('main tbody tr', (trs) =>
      trs.map((tr) => tr.children[4]?.textContent ?? ''),
    );
    expect(statuses.sort()).to.deep.equal(['sent', 'sent', 'suppressed', 'suppressed']);
    // The list links each message by its subject as sent; Ada's is hers.
    state.messagePath = await page.$$eval('main tbody tr', (trs) => {
      const ada = trs.find((tr) => tr.textContent?.includes('ada@journey.test'));
      return ada?.querySelector('a[href*="/messages/"]')?.getAttribute('href') ?? '';
    });
    expect(await linkTo(page, 'Hello Ada')).to.equal(state.messagePath);
    await follow(page, `main a[href="${state.messagePath}"]`);
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Hello Ada');
    expect(await page.$eval('iframe.message-frame', (el) => el.getAttribute('sandbox'))).to.equal('');
    expect(await frameTexts(page)).to.satisfy((texts: string[]) => texts.some((t) => t.includes('Hi ADA')));
    const timeline = () =>
      page.$$eval('section[aria-labelledby="timeline"] tbody tr', (trs) =>
        trs.map((tr) => tr.children[1]?.textContent ?? ''),
      );
    expect(await timeline())
      .to.include.members(['queued', 'sent'])
      .and.not.include('clicked');
    expect(await mainText(page)).to.contain('No open or click was recorded.');

    // The mail as Ada's client received it: its tracked link and pixel, fetched by her browser.
    const messageId = decodeURIComponent(state.messagePath.split('/').pop()!);
    const mail = await eventually(async () =>
      (await sink.received()).find((m) => m.headers['x-switchboard-message-id'] === messageId),
    );
    const { links, pixel } = trackingOf(String(mail.mail.html));
    expect(pixel, 'the tracking pixel').to.be.a('string');
    await sentAMinuteAgo(messageId); // a person reads it later than the machines that scan on arrival
    const click = await hit(links.get('offer')!, { userAgent: CHROME });
    expect(click.status).to.equal(302);
    expect(click.headers.get('location')).to.equal('https://example.com/offer');
    expect((await hit(pixel!, { userAgent: CHROME })).status).to.equal(200);
    await classifiedHits(state.client, api(), messageId, 2);
    await page.reload();
    const hits = await page.$$eval('section[aria-labelledby="hits"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.children].map((td) => (td.textContent ?? '').trim())),
    );
    expect(hits.map((cells) => cells.slice(1, 4))).to.have.deep.members([
      ['click', 'human', 'https://example.com/offer'],
      ['open', 'human', ''],
    ]);
    expect(await timeline()).to.include.members(['queued', 'sent', 'opened', 'clicked']);
  });

  it('reads the campaign’s report and the workspace’s: charts drawn, figures counted', async () => {
    // From the message to the campaign it came from, and on to its report.
    await follow(page, `main a[href="${campaignPath()}"]`);
    await follow(page, `a[href="${campaignPath()}/report"]`);
    const total = async (label: string) => (await rowOf(page, label))?.[1];
    await reloadUntil(page, async () => (await total('Clicked by a person')) === '1');
    expect(await total('Sent')).to.equal('2');
    expect(await total('Opened by a person')).to.equal('1');
    const charts = await page.$$eval('figure.chart svg polyline', (lines) =>
      lines.map((line) => line.getAttribute('points') ?? ''),
    );
    expect(charts.length).to.be.greaterThan(0);
    // Some line leaves the baseline: the figures are drawn, not only the axes.
    const heights = charts.flatMap((points) => points.split(' ').map((point) => Number(point.split(',')[1])));
    expect(new Set(heights).size).to.be.greaterThan(1);
    expect(await rowOf(page, 'https://example.com/offer')).to.deep.equal([
      'https://example.com/offer',
      '1',
      '0',
    ]);
    expect(await mainText(page)).to.contain('Split paths');

    await follow(page, `nav a[href="${app()}/reports"]`);
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Reports');
    await reloadUntil(page, async () => (await total('Clicked by a person')) === '1');
    expect(await total('Sent')).to.equal('2');
    expect(await page.$$eval('figure.chart svg', (svgs) => svgs.length)).to.be.greaterThan(0);
  });

  it('builds a form, submits it from its hosted page, and finds the submission listed', async () => {
    await follow(page, `nav a[href="${app()}/forms"]`);
    await follow(page, `a[href="${app()}/forms/new"]`);
    await page.type('#form-name', 'Early access');
    await follow(page, 'button[value="add"]');
    await page.type('#field-1-label', 'First name');
    await page.select('#field-1-mapTo', 'firstName');
    await page.type('#form-success', 'Thanks, {{ first_name }}!');
    await follow(page, 'button[value="save"]:not([hidden])');
    expect(await mainText(page)).to.contain('Form created.');
    const formPage = page.url();
    state.formId = /\/forms\/([^/?#]+)$/.exec(formPage)![1]!;

    await follow(page, 'a.hosted-link');
    expect(page.url()).to.equal(url(`/f/${state.formId}`));
    await page.type('#f-email', 'frank@journey.test');
    await page.type('#f-first_name', 'Frank');
    await follow(page, 'button[type=submit]');
    expect(await page.$eval('[role=status]', (node) => node.textContent)).to.equal('Thanks, Frank!');

    await page.goto(formPage);
    const submitted = await page.$eval('#submissions + .table-wrap tbody', (body) => body.textContent);
    expect(submitted).to.contain('frank@journey.test').and.contain('Frank');
  });

  it('imports a small CSV: uploads, maps, starts, and watches it finish', async () => {
    await follow(page, `nav a[href="${app()}/imports"]`);
    const file = csvFile(
      'journey.csv',
      'email,first_name,plan\ngrace@journey.test,Grace,pro\nhenry@journey.test,Henry,trial\n',
    );
    const input = (await page.$('#import-file')) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(file);
    await follow(page, 'main form button[type="submit"]');
    state.importPath = new URL(page.url()).pathname;
    expect(state.importPath).to.match(/\/imports\/imp_[0-9A-Z]{26}$/);
    expect(await page.$eval('#target-0', (select) => (select as HTMLSelectElement).value)).to.equal(
      'field:email',
    );
    expect(await page.$eval('#target-2', (select) => (select as HTMLSelectElement).value)).to.equal(
      'attribute',
    );
    await follow(page, 'button[value="start"]');
    // htmx polls the progress, then reloads the page with the outcome: no click.
    await page.waitForFunction(
      () => [...document.querySelectorAll('main h2')].some((h) => h.textContent === 'Outcome'),
      { timeout: 60_000 },
    );
    expect(await mainText(page))
      .to.contain('finished')
      .and.contain('No row was refused.');
    expect(await mainText(page)).to.match(/Imported\s*2/);
  });

  it('serves every page of part two with JavaScript off, each working and passing axe', async () => {
    await page.setJavaScriptEnabled(false);
    try {
      const visit = async (path: string, check: () => Promise<unknown>) => {
        const response = await page.goto(url(path));
        expect(response?.status(), path).to.equal(200);
        // axe runs on promises, which a page with scripting off never settles: it is switched back
        // on for axe alone, once the page is loaded (what did not run while loading never runs).
        await page.setJavaScriptEnabled(true);
        expect(await page.evaluate(() => 'htmx' in window), `${path}: console.js ran`).to.equal(false);
        await expectAccessible(page);
        await page.setJavaScriptEnabled(false);
        await check();
      };
      const count = (selector: string) => page.$$eval(selector, (els) => els.length);
      await visit(`${app()}/campaigns`, async () => expect(await mainText(page)).to.contain('Spring news'));
      await visit(`${app()}/campaigns/new/form`, async () => {
        // A button of the builder is a plain submit: the page comes back with the step added.
        await follow(page, 'button[name="action"][value="add:steps@0:send"]');
        expect(await count(field('steps[0]'))).to.equal(1);
      });
      await visit(campaignPath(), async () => expect(await count('svg.flow g.flow-step')).to.be.at.least(4));
      await visit(`${campaignPath()}/steps/0/template?contact=${state.ada}`, async () => {
        // The campaign is active: its template is read-only, and Preview renders it as saved.
        await follow(page, 'button[name="action"][value="preview"]');
        expect(await page.$eval('#template-preview dd', (el) => el.textContent)).to.equal('Hello Ada');
      });
      await visit(`${campaignPath()}/audience`, async () =>
        expect((await rowOf(page, 'A hard bounce'))?.[1]).to.equal('1'),
      );
      await visit(`${campaignPath()}/progress`, async () =>
        expect(await page.$eval('.progress-figures', (el) => el.textContent)).to.contain('finished'),
      );
      await visit(`${campaignPath()}/report`, async () => {
        expect(await count('figure.chart svg')).to.equal(4);
        await page.select('#report-period', '7d');
        await follow(page, 'form.report-period button[type="submit"]');
        expect(new URL(page.url()).searchParams.get('period')).to.equal('7d');
        expect(await count('figure.chart svg')).to.equal(4);
      });
      await visit(`${app()}/reports`, async () =>
        expect(await count('figure.chart svg')).to.be.greaterThan(0),
      );
      await visit(`${app()}/messages`, async () => {
        await page.select('#status', 'suppressed');
        await follow(page, 'form.filters button[type="submit"]');
        expect(new URL(page.url()).searchParams.get('status')).to.equal('suppressed');
        expect(await count('main tbody tr')).to.equal(2);
      });
      await visit(state.messagePath, async () =>
        expect(await page.$eval('iframe.message-frame', (el) => el.getAttribute('sandbox'))).to.equal(''),
      );
      await visit(`${app()}/forms`, async () => expect(await mainText(page)).to.contain('Early access'));
      await visit(`${app()}/forms/${state.formId}`, async () =>
        expect(await mainText(page)).to.contain('frank@journey.test'),
      );
      await visit(`${app()}/forms/new`, async () => {
        await follow(page, 'button[value="add"]');
        expect(await count('#field-1-label')).to.equal(1);
      });
      await visit(`/f/${state.formId}`, async () => {
        await page.type('#f-email', 'iris@journey.test');
        await page.type('#f-first_name', 'Iris');
        await follow(page, 'button[type=submit]');
        expect(await page.$eval('[role=status]', (node) => node.textContent)).to.equal('Thanks, Iris!');
      });
      await visit(`${app()}/imports`, async () => {
        const input = (await page.$('#import-file')) as ElementHandle<HTMLInputElement>;
        await input.uploadFile(csvFile('nojs.csv', 'email,plan\njune@journey.test,pro\n'));
        await follow(page, 'main form button[type="submit"]');
        await page.select('#target-1', 'ignore');
        await follow(page, 'button[value="preview"]');
        expect(await page.$eval('#target-1', (select) => (select as HTMLSelectElement).value)).to.equal(
          'ignore',
        );
      });
      await visit(state.importPath, async () => expect(await mainText(page)).to.contain('finished'));
    } finally {
      await page.setJavaScriptEnabled(true);
    }
  });

  it('keeps hostile templates, names, labels, link URLs and CSV columns inert on every page', async () => {
    const { workspaceId, client, contactId, campaignId, messageId, formId } = await hostile;
    const app = `/app/${workspaceId}`;
    const api = `/api/workspaces/${workspaceId}`;
    const hostileCampaign = `${app}/campaigns/${campaignId}`;
    const inert = async (where: string, shows = true) => {
      expect(await page.evaluate((flag) => flag in window, FLAG), `${where}: a payload ran`).to.equal(false);
      expect(dialogs, `${where}: a dialog opened`).to.deep.equal([]);
      const sandboxes = await page.$$eval('iframe', (frames) => frames.map((f) => f.getAttribute('sandbox')));
      for (const sandbox of sandboxes) expect(sandbox, `${where}: a frame's sandbox`).to.equal('');
      // The page as parsed now (after console.js ran), frames apart: their HTML is the message's.
      const markup = await page.evaluate(() => {
        const copy = document.documentElement.cloneNode(true) as HTMLElement;
        for (const frame of copy.querySelectorAll('iframe')) frame.remove();
        return copy.outerHTML;
      });
      expectInert(markup, where);
      if (shows) expect(await page.$eval('body', (el) => el.textContent), where).to.contain(HOSTILE);
    };
    const visit = async (path: string, shows = true) => {
      const response = await page.goto(url(path));
      expect(response?.status(), path).to.equal(200);
      await inert(path, shows);
    };
    await visit(`${app}/campaigns`);
    await visit(hostileCampaign);
    await visit(`${hostileCampaign}/form`);
    await visit(`${hostileCampaign}/steps/0/template?contact=${contactId}`);
    // The preview frames hold the rendered HTML, and run none of it.
    await page.waitForFunction(() => document.querySelectorAll('#template-preview iframe').length === 2);
    expect(await frameTexts(page)).to.satisfy((texts: string[]) =>
      texts.every((t) => t.includes(`window.${FLAG}=1`)),
    );
    await visit(`${hostileCampaign}/audience`);
    await visit(`${hostileCampaign}/progress`);
    await page.goto(url(`${hostileCampaign}/report`));
    await reloadUntil(page, async () => (await rowOf(page, 'https://example.com/?q=')) !== undefined);
    await inert(`${hostileCampaign}/report`);
    // The hostile link as it was clicked, its URL shown as written.
    expect((await rowOf(page, 'https://example.com/?q='))?.slice(1)).to.deep.equal(['1', '0']);
    await visit(`${app}/reports`, false);
    await visit(`${app}/messages`);
    await visit(`${app}/messages/${messageId}`);
    expect(await frameTexts(page)).to.satisfy((texts: string[]) =>
      texts.some((t) => t.includes(`window.${FLAG}=1`)),
    );
    await visit(`${app}/forms`);
    await visit(`${app}/forms/${formId}/edit`);
    // Typed in the editor, a javascript: redirect is refused at its field, and nothing is saved.
    await page.type('#form-redirect', JS_URL);
    const answer = await follow(page, 'button[value="save"]:not([hidden])');
    expect(answer?.status()).to.equal(400);
    expect(await page.$eval('#form-redirect-error', (el) => el.textContent)).to.equal(
      'must be an http:// or https:// URL',
    );
    await inert('the form editor refusing a javascript: redirect');
    expect((await client.get(`${api}/forms/${formId}`)).body.redirectUrl).to.equal(null);
    await visit(`/f/${formId}`);
    await page.type('#f-email', 'oscar@journey.test');
    await page.type('#f-first_name', HOSTILE);
    await follow(page, 'button[type=submit]');
    expect(await page.$eval('[role=status]', (node) => node.textContent)).to.equal(`${HOSTILE} ${HOSTILE}`);
    await inert('the hosted form’s thanks');
    await visit(`${app}/forms/${formId}`);

    // A CSV with a hostile column name and values, one row refused: its raw line is shown.
    await visit(`${app}/imports`, false);
    const csv = `email,${csvCell(HOSTILE)},note\nperry@journey.test,${csvCell(HOSTILE)},${csvCell(JS_URL)}\n${csvCell(HOSTILE)},x,y\n`;
    const input = (await page.$('#import-file')) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(csvFile('hostile.csv', csv));
    await follow(page, 'main form button[type="submit"]');
    await inert('the hostile import’s mapping');
    await follow(page, 'button[value="start"]');
    await page.waitForFunction(
      () => [...document.querySelectorAll('main h2')].some((h) => h.textContent === 'Outcome'),
      { timeout: 60_000 },
    );
    await inert('the hostile import’s outcome', false);
    expect(await mainText(page)).to.contain('Refused rows');
  });
});
