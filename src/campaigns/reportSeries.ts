// A report over a period, for a workspace or one of its campaigns: what was sent, delivered,
// opened and clicked (people, machines and privacy proxies apart), bounced by type, complained,
// unsubscribed and converted, per hour or day and in total, with rates and the clicks per link.
// The API's operations (reportRoutes.ts) and the console's pages (reportConsole.ts) both call this.
//
// The totals are the sums of the buckets: a message a person opened twice in the period counts
// once, in the bucket of the first open. Rates are over the messages sent in the period, so a
// period that starts after a send can show opens of messages it did not send (a rate above 1 is
// possible, and honest).
import type { z } from 'zod';
import type { Db } from '../db/pool.ts';
import { type Period, type ReportQueryInput, resolvePeriod } from './reportPeriod.ts';
import { clicksPerLink, countedPerBucket, type ReportScope } from './reportSeriesQueries.ts';
import { FIGURES, type Figures, type PeriodReport } from './reportSeriesSchemas.ts';
import { requireCampaign } from './service.ts';

/** The links listed, most clicked first: enough for any mail a person writes. */
export const LINKS_SHOWN = 100;

const zero = (): Figures => Object.fromEntries(FIGURES.map((name) => [name, 0])) as Figures;

const ratio = (part: number, whole: number) =>
  whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;

export function ratesOf(totals: Figures) {
  return {
    delivery: ratio(totals.delivered, totals.sent),
    open: ratio(totals.humanOpens, totals.sent),
    click: ratio(totals.humanClicks, totals.sent),
    clickToOpen: ratio(totals.humanClicks, totals.humanOpens),
    bounce: ratio(totals.hardBounces + totals.softBounces, totals.sent),
    complaint: ratio(totals.complaints, totals.sent),
    unsubscribe: ratio(totals.unsubscribes, totals.sent),
  };
}

async function figuresOf(db: Db, scope: ReportScope, period: Period) {
  const range = { from: period.from, to: period.to, bucket: period.bucket };
  const [counted, links] = await Promise.all([
    countedPerBucket(db, scope, range),
    clicksPerLink(db, scope, range, LINKS_SHOWN),
  ]);
  const byBucket = new Map(period.buckets.map((at) => [at.getTime(), zero()]));
  for (const { at, ...counts } of counted) {
    const figures = byBucket.get(Date.parse(at));
    if (figures) for (const name of FIGURES) figures[name] += counts[name];
  }
  const totals = zero();
  for (const figures of byBucket.values()) for (const name of FIGURES) totals[name] += figures[name];
  return {
    totals,
    rates: ratesOf(totals),
    series: period.buckets.map((at) => ({ at: at.toISOString(), ...byBucket.get(at.getTime())! })),
    links: links.map((row) => ({
      url: row.url,
      humanClicks: row.human_clicks,
      machineClicks: row.machine_clicks,
    })),
  };
}

function periodOf(period: Period) {
  return {
    name: period.name,
    bucket: period.bucket,
    from: period.from.toISOString(),
    to: period.to.toISOString(),
  };
}

/** The workspace's report over the period: every message, campaign or transactional. */
export async function workspaceReport(
  db: Db,
  workspaceId: string,
  query: ReportQueryInput,
  now = new Date(),
): Promise<z.output<typeof PeriodReport>> {
  const period = resolvePeriod(query, now);
  const figures = await figuresOf(db, { workspaceId, campaignId: null }, period);
  return { campaignId: null, period: periodOf(period), ...figures };
}

/** One campaign's report over the period; another workspace's campaign is not found. */
export async function campaignPeriodReport(
  db: Db,
  workspaceId: string,
  campaignId: string,
  query: ReportQueryInput,
  now = new Date(),
): Promise<z.output<typeof PeriodReport>> {
  await requireCampaign(db, workspaceId, campaignId);
  const period = resolvePeriod(query, now);
  const figures = await figuresOf(db, { workspaceId, campaignId }, period);
  return { campaignId, period: periodOf(period), ...figures };
}
