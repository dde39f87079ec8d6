// The report pages of the console: a campaign's (/app/{ws}/campaigns/{id}/report, linked from the
// campaign's page) and the workspace's (/app/{ws}/reports). Each shows a period (a GET form: the
// last 24 hours, 7, 30 or 90 days, or custom dates; hour or day buckets), the totals with their
// rates, charts over time (server-drawn SVG, each with its table), clicks per link, and for a
// campaign its split paths side by side with the difference in conversion and its p-value; and
// offers the same figures as a CSV download. The figures are the API's: the same services
// (reportSeries.ts, report.ts), the same roles (any member reads).
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import { type ChartSeries, lineChart } from '../console/charts.ts';
import { type CsvCell, sendCsv } from '../console/csv.ts';
import {
  type ConsolePages,
  emptyState,
  formatNumber,
  html,
  pageWorkspace,
  type SafeHtml,
  safeUrl,
  sendPage,
  table,
  time,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { campaignPath } from './consolePath.ts';
import { campaignSplits } from './report.ts';
import { BUCKETS, PERIODS, ReportQuery, type ReportQueryInput } from './reportPeriod.ts';
import { campaignPeriodReport, workspaceReport } from './reportSeries.ts';
import { FIGURES, type Figures, type PeriodReport } from './reportSeriesSchemas.ts';
import { requireCampaign, toCampaign } from './service.ts';

type Report = z.output<typeof PeriodReport>;
type Split = Awaited<ReturnType<typeof campaignSplits>>[number];

const PERIOD_LABELS: Record<(typeof PERIODS)[number], string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
  custom: 'From – to (dates below)',
};

export const FIGURE_LABELS: Record<keyof Figures, string> = {
  sent: 'Sent',
  delivered: 'Delivered',
  humanOpens: 'Opened by a person',
  machineOpens: 'Machine opens',
  proxyOpens: 'Privacy-proxy opens',
  humanClicks: 'Clicked by a person',
  machineClicks: 'Machine clicks',
  hardBounces: 'Hard bounces',
  softBounces: 'Soft bounces',
  complaints: 'Complaints',
  unsubscribes: 'Unsubscribes',
  conversions: 'Conversions',
};

/** Each rate beside the figure it is the rate of. */
const RATE_OF: Partial<Record<keyof Figures, { rate: keyof Report['rates']; of: string }>> = {
  delivered: { rate: 'delivery', of: 'of sent' },
  humanOpens: { rate: 'open', of: 'of sent' },
  humanClicks: { rate: 'click', of: 'of sent' },
  hardBounces: { rate: 'bounce', of: 'of sent (hard and soft)' },
  complaints: { rate: 'complaint', of: 'of sent' },
  unsubscribes: { rate: 'unsubscribe', of: 'of sent' },
};

const CHARTS: { title: string; figures: (keyof Figures)[] }[] = [
  { title: 'Sending', figures: ['sent', 'delivered', 'hardBounces', 'softBounces'] },
  { title: 'People', figures: ['humanOpens', 'humanClicks', 'conversions'] },
  { title: 'Machines and privacy proxies', figures: ['machineOpens', 'proxyOpens', 'machineClicks'] },
  { title: 'Complaints and unsubscribes', figures: ['complaints', 'unsubscribes'] },
];

const percent = (rate: number | null) =>
  rate === null ? '—' : `${(rate * 100).toFixed(rate < 0.1 ? 2 : 1)} %`;

/**
 * The query as the period form sent it: an empty field is an absent one, and the dates count only
 * with "From – to" (the form always sends them; the API refuses them with another period).
 */
function readQuery(req: Request) {
  const custom = req.query.period === 'custom';
  const given = Object.fromEntries(
    Object.entries(req.query).filter(
      ([key, value]) =>
        value !== '' && (['period', 'bucket'].includes(key) || (custom && ['from', 'to'].includes(key))),
    ),
  );
  return ReportQuery.safeParse(given);
}

function queryString(query: ReportQueryInput): string {
  const params = new URLSearchParams({ period: query.period });
  if (query.bucket) params.set('bucket', query.bucket);
  if (query.period === 'custom') {
    params.set('from', query.from ?? '');
    params.set('to', query.to ?? '');
  }
  return params.toString();
}

function periodForm(action: string, values: Record<string, unknown>): SafeHtml {
  const chosen = (name: string, value: string) => (values[name] === value ? html` selected` : '');
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : '');
  return html`<form method="get" action="${action}" class="report-period">
<label for="report-period">Period</label>
<select id="report-period" name="period">${PERIODS.map(
    (p) =>
      html`<option value="${p}"${chosen('period', p) || (values.period === undefined && p === '30d' ? html` selected` : '')}>${PERIOD_LABELS[p]}</option>`,
  )}</select>
<label for="report-bucket">Buckets</label>
<select id="report-bucket" name="bucket"><option value="">Automatic</option>${BUCKETS.map(
    (b) => html`<option value="${b}"${chosen('bucket', b)}>${b === 'hour' ? 'Hours' : 'Days'}</option>`,
  )}</select>
<span class="report-dates">
<label for="report-from">From (UTC day)</label>
<input id="report-from" name="from" type="date" value="${text('from')}">
<label for="report-to">To (UTC day, included)</label>
<input id="report-to" name="to" type="date" value="${text('to')}">
</span>
<button type="submit">Show</button>
</form>`;
}

function totalsTable(report: Report): SafeHtml {
  return table({
    caption: 'Totals over the period',
    columns: [{ label: 'Figure' }, { label: 'Total', numeric: true }, { label: 'Rate', numeric: true }],
    rows: FIGURES.map((name) => {
      const rate = RATE_OF[name];
      return [
        FIGURE_LABELS[name],
        formatNumber(report.totals[name]),
        rate && report.rates[rate.rate] !== null
          ? html`${percent(report.rates[rate.rate])} <span class="muted">${rate.of}</span>`
          : '',
      ];
    }),
  });
}

function charts(report: Report): SafeHtml[] {
  const buckets = report.series.map((point) => new Date(point.at));
  return CHARTS.map((chart) => {
    const series: ChartSeries[] = chart.figures.map((name) => ({
      label: FIGURE_LABELS[name],
      values: report.series.map((point) => point[name]),
    }));
    return lineChart({ title: chart.title, buckets, bucket: report.period.bucket, series });
  });
}

function linkCell(url: string): SafeHtml {
  const href = safeUrl(url);
  return href === '#'
    ? html`<code class="break">${url}</code>`
    : html`<a class="break" href="${href}" rel="noopener noreferrer">${url}</a>`;
}

function linksTable(report: Report): SafeHtml {
  if (report.links.length === 0) return html`<p class="muted">No link was clicked in this period.</p>`;
  return table({
    caption: 'Clicks per link',
    columns: [
      { label: 'Link' },
      { label: 'Clicked by people', numeric: true },
      { label: 'Machine clicks', numeric: true },
    ],
    rows: report.links.map((link) => [
      linkCell(link.url),
      formatNumber(link.humanClicks),
      formatNumber(link.machineClicks),
    ]),
  });
}

function verdict(path: Split['paths'][number]): SafeHtml | string {
  const compared = path.comparedToFirst;
  if (!compared) return html`<span class="muted">control</span>`;
  if (!compared.testable) return html`<span class="muted">too few to test</span>`;
  return compared.significant ? html`<strong>significant</strong>` : 'not significant';
}

function splitsSection(splits: Split[]): SafeHtml {
  if (splits.length === 0) return html``;
  const points = (difference: number) =>
    `${difference > 0 ? '+' : ''}${(difference * 100).toFixed(2)} points`;
  return html`<h2>Split paths</h2>
<p class="muted">Since the campaign began. Each path after the first is compared with the first: the difference in conversion rate, and a two-proportion z-test’s p-value (significant below 0.05).</p>
${splits.map((split) =>
  table({
    caption: `Split at step ${split.stepKey}`,
    columns: [
      { label: `Path (step ${split.stepKey})` },
      { label: 'Weight', numeric: true },
      { label: 'Enrolled', numeric: true },
      { label: 'Converted', numeric: true },
      { label: 'Conversion rate', numeric: true },
      { label: 'Difference', numeric: true },
      { label: 'p-value', numeric: true },
      { label: 'Verdict' },
    ],
    rows: split.paths.map((path) => [
      `Path ${path.path + 1}`,
      formatNumber(path.weight),
      formatNumber(path.enrolled),
      formatNumber(path.converted),
      percent(path.conversionRate),
      path.comparedToFirst ? points(path.comparedToFirst.difference) : '',
      path.comparedToFirst?.pValue === null || !path.comparedToFirst
        ? ''
        : pValueText(path.comparedToFirst.pValue),
      verdict(path),
    ]),
  }),
)}`;
}

const pValueText = (p: number) => (p < 0.0001 ? '< 0.0001' : p.toFixed(4));

function reportBody(report: Report, exportHref: string): SafeHtml {
  const { from, to } = report.period;
  const nothing =
    report.totals.sent === 0 && report.series.every((point) => FIGURES.every((f) => point[f] === 0));
  const filling = Date.parse(to) > Date.now();
  return html`<p>${time(from)} to ${time(to)}${filling ? html` <span class="muted">(the last ${report.period.bucket} is still filling)</span>` : ''} · <a href="${exportHref}" download>Download as CSV</a></p>
${nothing ? emptyState('Nothing happened in this period', 'Choose a longer period, or come back once messages have gone out.') : ''}
<h2>Totals</h2>
${totalsTable(report)}
<p class="muted">People count once per message (machine and privacy-proxy hits apart, each hit counted). Rates are over the messages sent in the period.</p>
<h2>Over time</h2>
<div class="charts">${charts(report)}</div>
<h2>Clicks per link</h2>
${linksTable(report)}`;
}

/** The query, or the page that lists what is wrong with it (400). */
function validQuery(
  req: Request,
  res: Response,
  page: { title: string; crumbs: { label: string; href: string }[]; section: string; action: string },
) {
  const parsed = readQuery(req);
  if (parsed.success) return parsed.data;
  const errors = zodIssuesToFieldErrors(parsed.error.issues, 'query');
  sendPage(res, {
    ...page,
    status: 400,
    body: html`<div class="flash flash-error" role="alert"><p>This period cannot be shown:</p><ul>${errors.map(
      (e) => html`<li>${e.path.replace(/^query\./, '')}: ${e.message}</li>`,
    )}</ul></div>${periodForm(page.action, req.query)}`,
  });
  return null;
}

async function campaignReportPage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = toCampaign(await requireCampaign(app.db, workspaceId, String(req.params.campaignId)));
  const path = campaignPath(res, campaign.id);
  const page = {
    title: `Report: ${campaign.name}`,
    section: 'campaigns',
    crumbs: [
      { label: 'Campaigns', href: `${workspacePath(res)}/campaigns` },
      { label: campaign.name, href: path },
    ],
    action: `${path}/report`,
  };
  const query = validQuery(req, res, page);
  if (!query) return;
  const [report, splits] = await Promise.all([
    campaignPeriodReport(app.db, workspaceId, campaign.id, query),
    campaignSplits(app.db, workspaceId, campaign.id),
  ]);
  sendPage(res, {
    ...page,
    body: html`${periodForm(page.action, query)}${reportBody(report, `${path}/report/export?${queryString(query)}`)}
${splitsSection(splits)}`,
  });
}

async function workspaceReportPage(app: AppContext, req: Request, res: Response) {
  const page = { title: 'Reports', section: 'reports', crumbs: [], action: `${workspacePath(res)}/reports` };
  const query = validQuery(req, res, page);
  if (!query) return;
  const report = await workspaceReport(app.db, pageWorkspace(res).id, query);
  sendPage(res, {
    ...page,
    body: html`<p class="muted">Every message of the workspace, from campaigns or sent through the API, and the conversions of every campaign. Each campaign has its own report on its page.</p>
${periodForm(page.action, query)}${reportBody(report, `${page.action}/export?${queryString(query)}`)}`,
  });
}

/** The figures of the page as rows: section, item, figure, value (one fact a row). */
export function reportRows(report: Report, splits: Split[] = []): CsvCell[][] {
  const rows: CsvCell[][] = [['section', 'item', 'figure', 'value']];
  rows.push(['period', '', 'name', report.period.name], ['period', '', 'bucket', report.period.bucket]);
  rows.push(['period', '', 'from', report.period.from], ['period', '', 'to', report.period.to]);
  for (const name of FIGURES) rows.push(['totals', '', name, report.totals[name]]);
  for (const [name, rate] of Object.entries(report.rates)) rows.push(['rates', '', name, rate]);
  for (const point of report.series)
    for (const name of FIGURES) rows.push(['series', point.at, name, point[name]]);
  for (const link of report.links) {
    rows.push(
      ['links', link.url, 'humanClicks', link.humanClicks],
      ['links', link.url, 'machineClicks', link.machineClicks],
    );
  }
  for (const split of splits) {
    for (const path of split.paths) {
      const item = `step ${split.stepKey} path ${path.path + 1}`;
      for (const name of ['weight', 'enrolled', 'converted', 'conversionRate'] as const)
        rows.push(['splits', item, name, path[name]]);
      if (path.comparedToFirst) {
        rows.push(['splits', item, 'differenceFromFirst', path.comparedToFirst.difference]);
        rows.push(['splits', item, 'pValue', path.comparedToFirst.pValue]);
        rows.push(['splits', item, 'significant', String(path.comparedToFirst.significant)]);
      }
    }
  }
  return rows;
}

async function campaignExport(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = await requireCampaign(app.db, workspaceId, String(req.params.campaignId));
  const query = validQuery(req, res, {
    title: 'Report',
    section: 'campaigns',
    crumbs: [],
    action: `${campaignPath(res, campaign.id)}/report`,
  });
  if (!query) return;
  const [report, splits] = await Promise.all([
    campaignPeriodReport(app.db, workspaceId, campaign.id, query),
    campaignSplits(app.db, workspaceId, campaign.id),
  ]);
  sendCsv(res, `${campaign.id}-report-${query.period}.csv`, reportRows(report, splits));
}

async function workspaceExport(app: AppContext, req: Request, res: Response) {
  const workspace = pageWorkspace(res);
  const query = validQuery(req, res, {
    title: 'Reports',
    section: 'reports',
    crumbs: [],
    action: `${workspacePath(res)}/reports`,
  });
  if (!query) return;
  const report = await workspaceReport(app.db, workspace.id, query);
  sendCsv(res, `${workspace.id}-report-${query.period}.csv`, reportRows(report));
}

export function reportConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: 'reports', label: 'Reports', key: 'r', order: 55 }],
    install: (router: Router) => {
      router.get('/reports', (req, res) => workspaceReportPage(app, req, res));
      router.get('/reports/export', (req, res) => workspaceExport(app, req, res));
      router.get('/campaigns/:campaignId/report', (req, res) => campaignReportPage(app, req, res));
      router.get('/campaigns/:campaignId/report/export', (req, res) => campaignExport(app, req, res));
    },
  };
}
