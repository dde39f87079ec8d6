// The SQL of a report over a period (src/campaigns/reportSeries.ts): what happened in each hour or
// day, for a workspace or one campaign. Each statement reads one table through a range of an
// index by workspace and time (sql/0054_report_indexes.sql), groups in the database and returns one
// row per bucket and figure, whatever the number of messages: set-based, never a query per row.
// A campaign's hits and timeline entries are those of its messages (a semi-join on its ids).
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { PROXY_REASON } from '../messages/index.ts';
import type { Bucket } from './reportPeriod.ts';

export type ReportScope = { workspaceId: string; campaignId: string | null };
export type Range = { from: Date; to: Date; bucket: Bucket };

const BucketCount = z.object({ at: z.string(), metric: z.string(), n: z.number() });
export type BucketCount = z.output<typeof BucketCount>;

/**
 * The start of the UTC hour or day holding the instant. date_bin from a UTC midnight is plain
 * arithmetic: over hundreds of thousands of rows it costs a third of date_trunc(…, 'UTC'), which
 * converts each instant through the time zone.
 */
const bucketOf = (column: ReturnType<typeof sql.fragment>, bucket: Bucket) =>
  sql.fragment`date_bin(${`1 ${bucket}`}::interval, ${column}, '2000-01-01T00:00:00Z'::timestamptz)`;

/** The scope's messages, for the hits and timeline entries of one campaign. */
function ofCampaignMessages(alias: 'h' | 'e', scope: ReportScope) {
  if (!scope.campaignId) return sql.fragment``;
  return sql.fragment`and ${sql.identifier([alias])}.message_id in (select m.id from messages m
    where m.workspace_id = ${scope.workspaceId} and m.campaign_id = ${scope.campaignId})`;
}

const within = (column: ReturnType<typeof sql.fragment>, range: Range) =>
  sql.fragment`${column} >= ${range.from.toISOString()}::timestamptz and ${column} < ${range.to.toISOString()}::timestamptz`;

/** Messages the provider accepted, by when (a later bounce leaves them counted here too). */
export async function sentPerBucket(db: Db, scope: ReportScope, range: Range) {
  const campaign = scope.campaignId ? sql.fragment`and m.campaign_id = ${scope.campaignId}` : sql.fragment``;
  return db.any(sql.type(BucketCount)`
    select ${bucketOf(sql.fragment`m.sent_at`, range.bucket)} as at, 'sent' as metric, count(*)::int as n
    from messages m
    where m.workspace_id = ${scope.workspaceId} ${campaign} and ${within(sql.fragment`m.sent_at`, range)}
    group by 1
  `);
}

/**
 * From the messages' timelines: deliveries and first opens by a person (the tracking worker and
 * push acknowledgements write each once per message, so entries are counted as they are, through
 * the index alone), and clicks by a person, bounces by type (one without a type is the provider's
 * refusal at send: hard), complaints and unsubscribes, each message once per figure in the bucket
 * of its first entry of the period (a person clicks several links; the rest are few).
 */
export async function timelinePerBucket(db: Db, scope: ReportScope, range: Range) {
  const entries = sql.fragment`e.workspace_id = ${scope.workspaceId}
    and ${within(sql.fragment`e.occurred_at`, range)} ${ofCampaignMessages('e', scope)}`;
  return db.any(sql.type(BucketCount)`
    select ${bucketOf(sql.fragment`e.occurred_at`, range.bucket)} as at,
      case e.type when 'delivered' then 'delivered' else 'humanOpens' end as metric, count(*)::int as n
    from message_events e
    where ${entries} and e.type in ('delivered', 'opened')
    group by 1, 2
    union all
    select ${bucketOf(sql.fragment`first_at`, range.bucket)}, metric, count(*)::int
    from (
      select e.message_id, min(e.occurred_at) as first_at,
        case e.type when 'clicked' then 'humanClicks' when 'complained' then 'complaints' else 'unsubscribes' end as metric
      from message_events e
      where ${entries} and e.type in ('clicked', 'complained', 'unsubscribed')
      group by e.message_id, e.type
      union all
      select e.message_id, min(e.occurred_at),
        case when e.detail ->> 'bounceType' = 'soft' then 'softBounces' else 'hardBounces' end
      from message_events e
      where ${entries} and e.type = 'bounced'
      group by e.message_id, 3
    ) firsts
    group by 1, 2
  `);
}

/**
 * Hits by machines and privacy proxies, each counted (as the campaign report counts them): the
 * pixel loads and link hits the request or the tracking worker found a machine's.
 */
export async function machineHitsPerBucket(db: Db, scope: ReportScope, range: Range) {
  return db.any(sql.type(BucketCount)`
    select ${bucketOf(sql.fragment`h.occurred_at`, range.bucket)} as at,
      case when h.kind <> 'open' then 'machineClicks'
        when ${PROXY_REASON} = any(h.reasons) then 'proxyOpens'
        else 'machineOpens' end as metric,
      count(*)::int as n
    from message_hits h
    where h.workspace_id = ${scope.workspaceId} and not h.human
      and ${within(sql.fragment`h.occurred_at`, range)} ${ofCampaignMessages('h', scope)}
    group by 1, 2
  `);
}

/** Enrollments that reached their campaign's goal, by when. */
export async function conversionsPerBucket(db: Db, scope: ReportScope, range: Range) {
  const campaign = scope.campaignId ? sql.fragment`and e.campaign_id = ${scope.campaignId}` : sql.fragment``;
  return db.any(sql.type(BucketCount)`
    select ${bucketOf(sql.fragment`e.completed_at`, range.bucket)} as at, 'conversions' as metric, count(*)::int as n
    from enrollments e
    where e.workspace_id = ${scope.workspaceId} ${campaign} and e.status = 'converted'
      and ${within(sql.fragment`e.completed_at`, range)}
    group by 1
  `);
}

const LinkRow = z.object({ url: z.string(), human_clicks: z.number(), machine_clicks: z.number() });

/** Clicks per link in the period: people (messages, once each) and machine hits, most clicked first. */
export async function clicksPerLink(db: Db, scope: ReportScope, range: Range, limit: number) {
  return db.any(sql.type(LinkRow)`
    select h.url,
      count(distinct h.message_id) filter (where h.human and h.classified_at is not null)::int as human_clicks,
      count(*) filter (where not h.human)::int as machine_clicks
    from message_hits h
    where h.workspace_id = ${scope.workspaceId} and h.kind = 'click' and h.url is not null
      and ${within(sql.fragment`h.occurred_at`, range)} ${ofCampaignMessages('h', scope)}
    group by h.url
    order by 2 desc, 3 desc, h.url
    limit ${limit}
  `);
}
