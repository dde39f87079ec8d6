// The report pages over HTTP: a campaign's (…/campaigns/{id}/report) and the workspace's
// (…/reports) show the API's figures (…/report/series, …/report) for a campaign with a send, opens
// of each class, clicks, a bounce, an unsubscribe and a conversion; the buckets; the CSV export
// with the same figures and formula-like cells made inert; split paths with their p-value; any
// member reads; another workspace's campaign is not found; hostile names and link URLs are inert.
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { FIGURE_LABELS } from '../../src/campaigns/reportConsole.ts';
import { FIGURES } from '../../src/campaigns/reportSeriesSchemas.ts';
import { sql } from '../../src/db/pool.ts';
import { createContact } from '../events/support.ts';
import { messagingWorkspace, suiteSink } from '../messages/support.ts';
import { consolePage, expectInert } from '../support/console.ts';
import { eventually, expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { server } from '../support/server.ts';
import {
  BARRACUDA,
  CHROME,
  classifiedHits,
  hit,
  newsletter,
  sentAMinuteAgo,
  suiteLanding,
  trackingOf,
} from '../tracking/support.ts';
import { createCampaign } from './support.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
const APPLE_PROXY = 'Mozilla/5.0';
/** Links a crafted hit could carry: markup, a script URL, and cells a spreadsheet would run. */
const HOSTILE_LINKS = [
  'javascript:alert(3)',
  'https://evil.test/"><img src=x onerror=alert(4)>',
  '=HYPERLINK("https://evil.test","x")',
  '+1+cmd',
  '-2+3',
  '@SUM(A1)',
];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The figure's total as the page's totals table shows it. */
function pageTotal(text: string, label: string): number {
  const match = new RegExp(`<td>${label}</td><td class="num">([\\d,]+)</td>`).exec(text);
  expect(match, `total of ${label}`).to.not.equal(null);
  return Number(match![1].replaceAll(',', ''));
}

function parseCsv(text: string): string[][] {
  return parse(text);
}

async function oneClickUnsubscribe(path: string) {
  const response = await fetch(server().baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
  expect(response.status).to.equal(200);
}

describe('campaigns: report pages', function () {
  this.timeout(90_000);
  const sink = suiteSink();
  const landing = suiteLanding();

  /**
   * A campaign (goal: purchase) that sent to a reader and bounced at a second address; the reader's
   * mail was opened by them, by a privacy proxy and by a scanner, clicked by them and by the
   * scanner; they bought (a conversion), then unsubscribed through the mail.
   */
  async function campaignWithHistory() {
    const ws = await messagingWorkspace(sink);
    const created = await ws.client.post(`${ws.base}/campaigns`, {
      name: HOSTILE,
      trigger: { type: 'event', eventType: 'newsletter.requested' },
      steps: [
        { type: 'send', channel: 'email', subject: 'News', body: newsletter(landing.origin) },
        { type: 'wait', duration: 'P1D' },
      ],
      goal: { eventType: 'purchase' },
    });
    expect(created.status, created.text).to.equal(201);
    const campaignId = created.body.id as string;
    expect((await ws.client.post(`${ws.base}/campaigns/${campaignId}/activate`)).status).to.equal(200);
    const reader = await createContact(ws.client, ws.base, { email: `reader.${Date.now()}@report.test` });
    const bouncer = `bounce.${Date.now()}@report.test`;
    sink.reject.set(bouncer, 550);
    const bouncing = await createContact(ws.client, ws.base, { email: bouncer });
    for (const contact of [reader, bouncing])
      await ws.client.post(`${ws.base}/events`, { type: 'newsletter.requested', contactId: contact.id });
    const messages = await eventually(async () => {
      const list = await ws.client.get(`${ws.base}/messages?campaignId=${campaignId}`);
      const done = list.body.data.filter((m: { status: string }) => ['sent', 'bounced'].includes(m.status));
      return done.length === 2 ? list.body.data : null;
    }, 20_000);
    const sent = messages.find((m: { status: string }) => m.status === 'sent');
    const mail = (await sink.received()).find((r) => r.headers['x-switchboard-message-id'] === sent.id)!;
    await sentAMinuteAgo(sent.id);
    const { links, pixel } = trackingOf(String(mail.mail.html));
    await hit(pixel!, { userAgent: CHROME });
    await hit(pixel!, { userAgent: APPLE_PROXY });
    await hit(pixel!, { userAgent: BARRACUDA });
    await hit(links.get('blog')!, { userAgent: BARRACUDA });
    // Two links within a second look like a scanner: the person clicks later.
    await pause(1_200);
    await hit(links.get('offer')!, { userAgent: CHROME });
    await classifiedHits(ws.client, ws.base, sent.id, 5);
    await ws.client.post(`${ws.base}/events`, { type: 'purchase', contactId: reader.id });
    await eventually(async () => {
      const report = await ws.client.get(`${ws.base}/campaigns/${campaignId}/report`);
      return report.body.enrollments.converted === 1 ? true : null;
    });
    const unsubscribe = new URL(/^<([^>]+)>$/.exec(mail.headers['list-unsubscribe'])![1]).pathname;
    await oneClickUnsubscribe(unsubscribe);
    return { ...ws, campaignId, messageId: sent.id as string };
  }

  it('shows the API’s figures for a campaign and the workspace, per hour, with charts, links and a CSV export', async () => {
    const { admin, client, base, workspaceId, campaignId, messageId } = await campaignWithHistory();
    const app = `/app/${workspaceId}`;
    // Hostile link URLs, as crafted hits could leave them.
    await server().context.db.query(sql.typeAlias('void')`
      insert into message_hits (workspace_id, message_id, kind, url, method, user_agent, human, reasons, classified_at)
      select ${workspaceId}, ${messageId}, 'click', url, 'GET', 'curl', false, '{bot_user_agent}', now()
      from unnest(${sql.array(HOSTILE_LINKS, 'text')}) url
    `);

    const api = await client.get(`${base}/campaigns/${campaignId}/report/series?period=24h`);
    expect(api.status, api.text).to.equal(200);
    expect(api.body.totals).to.deep.equal({
      sent: 1,
      delivered: 0,
      humanOpens: 1,
      machineOpens: 1,
      proxyOpens: 1,
      humanClicks: 1,
      machineClicks: 1 + HOSTILE_LINKS.length,
      hardBounces: 1,
      softBounces: 0,
      complaints: 0,
      unsubscribes: 1,
      conversions: 1,
    });
    expect(api.body.rates).to.deep.include({ open: 1, click: 1, clickToOpen: 1, bounce: 1, unsubscribe: 1 });
    expect(api.body.period).to.include({ name: '24h', bucket: 'hour' });
    expect(api.body.series).to.have.length(24);
    const now = api.body.series.at(-1);
    expect(now.humanOpens + api.body.series.at(-2).humanOpens).to.equal(1);
    const offer = api.body.links.find((l: { url: string }) => l.url.includes('/offer'));
    expect(offer).to.include({ humanClicks: 1, machineClicks: 0 });

    const page = await consolePage(admin, `${app}/campaigns/${campaignId}/report?period=24h`);
    expectInert(page.text, 'campaign report');
    for (const figure of FIGURES)
      expect(pageTotal(page.text, FIGURE_LABELS[figure]), figure).to.equal(api.body.totals[figure]);
    expect(page.text).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text.match(/<figure class="chart">/g)).to.have.length(4);
    expect(page.text).to.match(
      /<svg role="img" aria-label="People, per hour: Opened by a person 1, Clicked by a person 1, Conversions 1"/,
    );
    expect(page.text).to.contain('<code class="break">javascript:alert(3)</code>');
    expect(page.text).to.contain('https://evil.test/&quot;&gt;&lt;img src=x onerror=alert(4)&gt;');
    // The campaign's page links to its report.
    expect((await consolePage(admin, `${app}/campaigns/${campaignId}`)).text).to.contain(
      `href="${app}/campaigns/${campaignId}/report"`,
    );

    // Day buckets over 7 days: 7 of them, the same totals.
    const week = await client.get(`${base}/campaigns/${campaignId}/report/series?period=7d`);
    expect(week.body.series).to.have.length(7);
    expect(week.body.period.bucket).to.equal('day');
    expect(week.body.totals).to.deep.equal(api.body.totals);
    // As the form sends it: the dates go with "From – to" only.
    const weekPage = await consolePage(
      admin,
      `${app}/campaigns/${campaignId}/report?period=7d&bucket=&from=2026-01-01&to=`,
    );
    expect(pageTotal(weekPage.text, 'Sent')).to.equal(1);

    // The CSV: the same figures, one a row, formula-like cells prefixed.
    const csv = await admin.get(`${app}/campaigns/${campaignId}/report/export?period=24h`);
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).to.match(/^attachment; filename="[\w.-]+\.csv"$/);
    const rows = parseCsv(csv.text);
    expect(rows[0]).to.deep.equal(['section', 'item', 'figure', 'value']);
    for (const figure of FIGURES)
      expect(rows.find((r) => r[0] === 'totals' && r[2] === figure)?.[3], figure).to.equal(
        String(api.body.totals[figure]),
      );
    expect(rows.filter((r) => r[0] === 'series')).to.have.length(24 * FIGURES.length);
    const linkCells = new Set(rows.filter((r) => r[0] === 'links').map((r) => r[1]));
    for (const formula of ['=HYPERLINK("https://evil.test","x")', '+1+cmd', '-2+3', '@SUM(A1)'])
      expect(linkCells.has(`'${formula}`), formula).to.equal(true);
    expect(csv.text).to.contain(`"'=HYPERLINK(""https://evil.test"",""x"")"`);
    expect(linkCells.has('javascript:alert(3)')).to.equal(true);

    // The workspace's report: the same figures (this workspace sent nothing else).
    const workspace = await client.get(`${base}/report?period=24h`);
    expect(workspace.status, workspace.text).to.equal(200);
    expect(workspace.body.campaignId).to.equal(null);
    expect(workspace.body.totals).to.deep.equal(api.body.totals);
    const reports = await consolePage(admin, `${app}/reports?period=24h`);
    expectInert(reports.text, 'workspace report');
    for (const figure of FIGURES)
      expect(pageTotal(reports.text, FIGURE_LABELS[figure]), figure).to.equal(workspace.body.totals[figure]);
    expect(reports.text).to.contain('aria-current="page">Reports');
    const workspaceCsv = parseCsv((await admin.get(`${app}/reports/export?period=24h`)).text);
    expect(workspaceCsv.find((r) => r[0] === 'totals' && r[2] === 'unsubscribes')?.[3]).to.equal('1');
  });

  it('lets any member read; refuses a bad period with what to fix; another workspace’s campaign is not found', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin('Reports Co');
    const api = `/api/workspaces/${workspaceId}`;
    const campaign = await createCampaign(admin, api, { name: 'Quiet' });
    const { client: member } = await memberOf(admin, workspaceId, 'MEMBER');
    const app = `/app/${workspaceId}`;
    const page = await consolePage(member, `${app}/campaigns/${campaign.id}/report`);
    expect(page.text).to.contain('Nothing happened in this period');
    expect(page.text).to.contain('<option value="30d" selected>');
    expect((await consolePage(member, `${app}/reports?period=90d`)).text).to.contain(
      '(the last day is still filling)',
    );
    const past = await consolePage(member, `${app}/reports?period=custom&from=2026-01-01&to=2026-01-03`);
    expect(past.text).to.contain('<time datetime="2026-01-04T00:00:00.000Z">');
    expect(past.text).to.not.contain('still filling');
    expect((await member.get(`${app}/reports/export`)).status).to.equal(200);

    const bad = await consolePage(member, `${app}/reports?period=custom&from=2026-02-30&to=2026-01-01`, 400);
    expect(bad.text).to.contain('from: is not a calendar date');
    const reversed = await consolePage(
      member,
      `${app}/reports?period=custom&from=2026-03-02&to=2026-03-01`,
      400,
    );
    expect(reversed.text).to.contain('to: must not be before from');
    expectProblem(await admin.get(`${api}/report?period=24h&bucket=day`), 400);
    expectProblem(await admin.get(`${api}/report?period=forever`), 400);
    const custom = await admin.get(`${api}/report?period=custom&from=2026-01-01&to=2026-01-03&bucket=hour`);
    expect(custom.status, custom.text).to.equal(200);
    expect(custom.body.series).to.have.length(72);
    expect(custom.body.period).to.deep.equal({
      name: 'custom',
      bucket: 'hour',
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-04T00:00:00.000Z',
    });

    const other = await workspaceWithAdmin('Elsewhere');
    const theirs = await createCampaign(other.client, `/api/workspaces/${other.workspaceId}`, {
      name: 'Theirs',
    });
    await consolePage(admin, `${app}/campaigns/${theirs.id}/report`, 404);
    expect((await admin.get(`${app}/campaigns/${theirs.id}/report/export`)).status).to.equal(404);
    expectProblem(await admin.get(`${api}/campaigns/${theirs.id}/report/series`), 404);
    await consolePage(admin, `/app/${other.workspaceId}/reports`, 404);
  });

  it('compares split paths: conversion, the difference and its p-value, on the page, in the API and the CSV', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin('Split Co');
    const api = `/api/workspaces/${workspaceId}`;
    const campaign = await createCampaign(admin, api, {
      name: 'Split test',
      steps: [
        {
          type: 'split',
          paths: [
            { weight: 1, steps: [{ type: 'wait', duration: 'P1D' }] },
            { weight: 1, steps: [{ type: 'wait', duration: 'P2D' }] },
          ],
        },
      ],
    });
    const contact = await createContact(admin, api, { email: 'split@report.test' });
    // 200 of 1,000 converted on the first path, 250 of 1,000 on the second: p ≈ 0.0074.
    await server().context.db.query(sql.typeAlias('void')`
      insert into enrollments (workspace_id, id, campaign_id, contact_id, status, cohorts, completed_at)
      select ${workspaceId}, 'enr_split_' || ${campaign.id} || '_' || g, ${campaign.id}, ${contact.id},
        case when (g <= 1000 and g <= 200) or (g > 1000 and g <= 1250) then 'converted' else 'completed' end,
        jsonb_build_object('0', case when g <= 1000 then 0 else 1 end), now()
      from generate_series(1, 2000) g
    `);
    const report = await admin.get(`${api}/campaigns/${campaign.id}/report`);
    expect(report.status, report.text).to.equal(200);
    const [first, second] = report.body.steps[0].paths;
    expect(first).to.deep.equal({ path: 0, weight: 1, enrolled: 1000, converted: 200, conversionRate: 0.2 });
    expect(second).to.deep.include({ path: 1, enrolled: 1000, converted: 250, conversionRate: 0.25 });
    expect(second.comparedToFirst).to.deep.equal({
      difference: 0.05,
      pValue: 0.00742,
      significant: true,
      testable: true,
    });

    const page = await consolePage(admin, `/app/${workspaceId}/campaigns/${campaign.id}/report`);
    expect(page.text).to.contain('<h2>Split paths</h2>');
    expect(page.text).to.match(
      /<td>Path 2<\/td><td class="num">1<\/td><td class="num">1,000<\/td><td class="num">250<\/td><td class="num">25\.0 %<\/td><td class="num">\+5\.00 points<\/td><td class="num">0\.0074<\/td><td><strong>significant<\/strong><\/td>/,
    );
    expect(page.text).to.contain('<td>Path 1</td>');
    expect(page.text).to.contain('<span class="muted">control</span>');
    const rows = parseCsv(
      (await admin.get(`/app/${workspaceId}/campaigns/${campaign.id}/report/export`)).text,
    );
    expect(rows).to.deep.include(['splits', 'step 0 path 2', 'pValue', '0.00742']);
    expect(rows).to.deep.include(['splits', 'step 0 path 2', 'differenceFromFirst', '0.05']);
    expect(rows).to.deep.include(['splits', 'step 0 path 2', 'significant', 'true']);
  });
});
