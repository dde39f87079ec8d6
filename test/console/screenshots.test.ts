// The console guide's pictures (docs/guides/console.md): a workspace seeded through the API as a new
// team would fill it (contacts, events, a segment, a scoring rule, a campaign that has sent mail, a
// form, a webhook endpoint), then every section opened in Chromium at a laptop's width. Each page
// must show what was seeded, fit the width and pass axe; with CONSOLE_SCREENSHOTS=1 each is also
// saved as the PNG the guide shows (`CONSOLE_SCREENSHOTS=1 npm test -- test/console/screenshots.test.ts`),
// so the guide's pictures are always of the console as it is.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { type SmtpSink, startSmtpSink } from '../channels/smtpSink.ts';
import { suiteChromium } from '../support/browser.ts';
import { ROOT } from '../support/cli.ts';
import type { Client } from '../support/client.ts';
import {
  expectAccessible,
  horizontalOverflow,
  isolatedPage,
  signInBrowser,
  url,
} from '../support/console.ts';
import { eventually, workspaceWithAdmin } from '../support/factories.ts';

const SCREENSHOTS = path.join(ROOT, 'docs/guides/console');
const save = process.env.CONSOLE_SCREENSHOTS === '1';

const PEOPLE = [
  ['Ada', 'Lovelace', 'ada@example.com', 'trial'],
  ['Grace', 'Hopper', 'grace@example.com', 'pro'],
  ['Alan', 'Turing', 'alan@example.com', 'trial'],
  ['Katherine', 'Johnson', 'katherine@example.com', 'pro'],
  ['Edsger', 'Dijkstra', 'edsger@example.com', 'trial'],
  ['Barbara', 'Liskov', 'barbara@example.com', 'enterprise'],
] as const;

type Seeded = {
  workspaceId: string;
  contactId: string;
  segmentId: string;
  campaignId: string;
  formId: string;
};

async function ok(response: Promise<{ status: number; body: unknown; text: string }>, status = 201) {
  const answer = await response;
  expect(answer.status, answer.text.slice(0, 300)).to.equal(status);
  return answer.body as { id: string };
}

/** The workspace a team has after its first afternoon: what every section of the console shows. */
async function seed(client: Client, workspaceId: string, sink: SmtpSink): Promise<Seeded> {
  const base = `/api/workspaces/${workspaceId}`;
  await ok(
    client.put(`${base}/channels/email`, {
      host: '127.0.0.1',
      port: sink.port,
      fromEmail: 'hello@example.com',
      fromName: 'Acme',
    }),
    200,
  );
  const ids: string[] = [];
  for (const [firstName, lastName, email, plan] of PEOPLE)
    ids.push(
      (await ok(client.post(`${base}/contacts`, { email, firstName, lastName, attributes: { plan } }))).id,
    );
  const segment = await ok(
    client.post(`${base}/segments`, {
      name: 'Trial users',
      rules: { attribute: 'plan', op: 'eq', value: 'trial' },
    }),
  );
  await ok(
    client.post(`${base}/scoring-rules`, {
      name: 'Viewed pricing',
      eventType: 'page.viewed',
      points: 5,
      where: [{ path: 'path', op: 'eq', value: '/pricing' }],
    }),
  );
  const campaign = await ok(
    client.post(`${base}/campaigns`, {
      name: 'Demo follow-up',
      trigger: { type: 'event', eventType: 'demo.requested' },
      steps: [
        {
          type: 'send',
          channel: 'email',
          subject: 'Your demo, {{ contact.firstName | default: "there" }}',
          body: '<p>Hi {{ contact.firstName }},</p><p><a href="https://example.com/book">Book your demo</a>.</p>',
        },
        { type: 'wait', duration: 'P2D' },
        {
          type: 'branch',
          if: { segment: segment.id },
          // biome-ignore lint/suspicious/noThenProperty: the branch step's arm
          then: [
            {
              type: 'send',
              channel: 'email',
              subject: 'Your trial ends soon',
              body: '<p>Upgrade to keep your data.</p>',
            },
          ],
        },
      ],
    }),
  );
  await ok(client.post(`${base}/campaigns/${campaign.id}/activate`), 200);
  const form = await ok(
    client.post(`${base}/forms`, {
      name: 'Newsletter',
      fields: [
        { key: 'email', label: 'Email', type: 'email', required: true, mapTo: { contactField: 'email' } },
        { key: 'first', label: 'First name', type: 'text', mapTo: { contactField: 'firstName' } },
      ],
    }),
  );
  await ok(
    client.post(`${base}/webhooks`, {
      name: 'CRM sync',
      url: 'https://crm.example.com/hooks/switchboard',
      events: ['contact.created', 'segment.entered'],
    }),
  );
  for (const [index, contactId] of ids.entries()) {
    await ok(
      client.post(`${base}/events`, { contactId, type: 'page.viewed', metadata: { path: '/pricing' } }),
    );
    if (index % 2 === 0) await ok(client.post(`${base}/events`, { contactId, type: 'demo.requested' }));
  }
  await eventually(async () => expect(sink.messages.length).to.be.at.least(3), 30_000);
  return { workspaceId, contactId: ids[0], segmentId: segment.id, campaignId: campaign.id, formId: form.id };
}

/** Each section: where it is, what it must show, the picture's name. */
function shots(s: Seeded): { name: string; path: string; shows: string }[] {
  const app = `/app/${s.workspaceId}`;
  return [
    { name: 'contacts', path: `${app}/contacts`, shows: 'grace@example.com' },
    { name: 'contact', path: `${app}/contacts/${s.contactId}`, shows: 'Lovelace' },
    { name: 'segments', path: `${app}/segments`, shows: 'Trial users' },
    { name: 'segment', path: `${app}/segments/${s.segmentId}`, shows: 'Trial users' },
    { name: 'segment-builder', path: `${app}/segments/new`, shows: 'Contacts that match' },
    { name: 'scoring', path: `${app}/scoring`, shows: 'Viewed pricing' },
    { name: 'campaigns', path: `${app}/campaigns`, shows: 'Demo follow-up' },
    { name: 'campaign', path: `${app}/campaigns/${s.campaignId}`, shows: 'if in segment “Trial users”' },
    { name: 'campaign-builder', path: `${app}/campaigns/new/form`, shows: 'Trigger' },
    {
      name: 'campaign-template',
      path: `${app}/campaigns/${s.campaignId}/steps/0/template`,
      shows: 'Subject',
    },
    { name: 'campaign-report', path: `${app}/campaigns/${s.campaignId}/report`, shows: 'Sending' },
    { name: 'reports', path: `${app}/reports`, shows: 'People' },
    { name: 'messages', path: `${app}/messages`, shows: 'Your demo, Ada' },
    { name: 'forms', path: `${app}/forms`, shows: 'Newsletter' },
    { name: 'form', path: `${app}/forms/${s.formId}`, shows: 'Newsletter' },
    { name: 'imports', path: `${app}/imports`, shows: 'Upload' },
    { name: 'webhooks', path: `${app}/webhooks`, shows: 'CRM sync' },
    { name: 'settings-keys', path: `${app}/settings/keys`, shows: 'API keys' },
    { name: 'settings-channels', path: `${app}/settings/channels`, shows: 'SMS' },
    { name: 'audit', path: `${app}/audit`, shows: 'Demo follow-up' },
  ];
}

describe('the console guide: every section in a browser, as the guide shows it', function () {
  this.timeout(180_000);
  const chromium = suiteChromium();
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(() => sink?.close());

  it('shows each section with what a team seeded, fitting a laptop and accessible', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin('Acme');
    const seeded = await seed(client, workspaceId, sink);
    const { page, close } = await isolatedPage(chromium.browser);
    if (save) mkdirSync(SCREENSHOTS, { recursive: true });
    try {
      await page.setViewport({ width: 1280, height: 800 });
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
      await signInBrowser(page, user.email, `/app/${workspaceId}/contacts`);
      for (const shot of shots(seeded)) {
        const response = await page.goto(url(shot.path));
        expect(response?.status(), shot.path).to.equal(200);
        expect(await page.$eval('main', (main) => main.textContent), shot.name).to.contain(shot.shows);
        expect(await horizontalOverflow(page), `${shot.name} overflows`).to.be.at.most(0);
        await expectAccessible(page);
        if (save) await page.screenshot({ path: path.join(SCREENSHOTS, `${shot.name}.png`) });
      }
    } finally {
      await close();
    }
  });
});
