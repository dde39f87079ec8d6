// The SQL of a report over a period (src/campaigns/reportSeries.ts): what happened in each hour or
// day, for a workspace or one campaign. The figures are read from hourly counters the database
// keeps as messages, their timeline, their hits and the enrollments change
// (sql/0061_report_hourly_counts.sql): a period costs its hours, whatever the number of messages.
// The clicks per link too, from counters per link and hour.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import type { Bucket } from './reportPeriod.ts';
import { FIGURES, type Figures } from './reportSeriesSchemas.ts';

export type ReportScope = { workspaceId: string; campaignId: string | null };
export type Range = { from: Date; to: Date; bucket: Bucket };

/**
 * The start of the UTC hour or day holding the instant. date_bin from a UTC midnight is plain
 * arithmetic: over hundreds of thousands of rows it costs a third of date_trunc(…, 'UTC'), which
 * converts each instant through the time zone.
 */
const bucketOf = (column: ReturnType<typeof sql.fragment>, bucket: Bucket) =>
  sql.fragment`date_bin(${`1 ${bucket}`}::interval, ${column}, '2000-01-01T00:00:00Z'::timestamptz)`;

const within = (column: ReturnType<typeof sql.fragment>, range: Range) =>
  sql.fragment`${column} >= ${range.from.toISOString()}::timestamptz and ${column} < ${range.to.toISOString()}::timestamptz`;

/** A figure's counter column (sql/0061_report_hourly_counts.sql): humanOpens is human_opens. */
const columnOf = (figure: string) => figure.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const CountedBucket = z
  .object(
    Object.fromEntries(FIGURES.map((figure) => [figure, z.number()])) as Record<keyof Figures, z.ZodNumber>,
  )
  .extend({ at: z.string() });

/**
 * Every figure per bucket (one row each: buckets that counted nothing are left out), from the
 * hourly counters of the campaign or the workspace (one row per hour, previous hour and backend
 * that counted something). A message's first click, complaint, unsubscribe or bounce of the period
 * is its entry there whose previous one (of the figure) is before the period: `previous` is
 * '-infinity' for a first entry and for the figures counted each.
 */
export async function countedPerBucket(db: Db, scope: ReportScope, range: Range) {
  const counters = scope.campaignId
    ? sql.fragment`campaign_hourly_counts c
      where c.workspace_id = ${scope.workspaceId} and c.campaign_id = ${scope.campaignId}`
    : sql.fragment`workspace_hourly_counts c where c.workspace_id = ${scope.workspaceId}`;
  const sums = sql.join(
    FIGURES.map(
      (figure) =>
        sql.fragment`sum(${sql.identifier(['c', columnOf(figure)])})::int as ${sql.identifier([figure])}`,
    ),
    sql.fragment`, `,
  );
  return db.any(sql.type(CountedBucket)`
    select ${bucketOf(sql.fragment`c.hour`, range.bucket)} as at, ${sums}
    from ${counters} and ${within(sql.fragment`c.hour`, range)}
      and c.previous < ${range.from.toISOString()}::timestamptz
    group by 1
  `);
}

const LinkRow = z.object({ url: z.string(), human_clicks: z.number(), machine_clicks: z.number() });

/**
 * Clicks per link in the period: people (messages, once each) and machine hits, most clicked first,
 * from the links' hourly counters (a message's first click on a link in the period is its click
 * there whose previous one on the link is before the period).
 */
export async function clicksPerLink(db: Db, scope: ReportScope, range: Range, limit: number) {
  return db.any(sql.type(LinkRow)`
    select min(l.url) as url, sum(l.human_clicks)::int as human_clicks, sum(l.machine_clicks)::int as machine_clicks
    from link_hourly_counts l
    where l.workspace_id = ${scope.workspaceId} and l.campaign_id = ${scope.campaignId ?? ''}
      and ${within(sql.fragment`l.hour`, range)} and l.previous < ${range.from.toISOString()}::timestamptz
    group by l.url_key
    having sum(l.human_clicks) > 0 or sum(l.machine_clicks) > 0
    order by 2 desc, 3 desc, 1
    limit ${limit}
  `);
}
