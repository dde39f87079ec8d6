// A report over a period at a million messages (bench:console's 30-day workspace report): its
// figures are read from hourly counters kept as messages, their timeline, their hits and the
// enrollments change (sql/0061), and they are the figures the rows give, counted as the report
// counted them before the counters: for a campaign and the workspace (its transactional messages
// and a deleted campaign's included), in hour and day buckets, for periods that start before,
// inside and after the history, after sends, deliveries, opens, clicks on several days, bounces of
// both kinds, complaints, unsubscribes, entries recorded out of order, hits of every class settled
// (some a machine's), conversions moved, hits and messages pruned and a contact erased; and the
// clicks per link (people's once per message in the period, a URL longer than an index entry).
import { expect } from 'chai';
import { z } from 'zod';
import type { ReportQueryInput } from '../../src/campaigns/reportPeriod.ts';
import { resolvePeriod } from '../../src/campaigns/reportPeriod.ts';
import { campaignPeriodReport, workspaceReport } from '../../src/campaigns/reportSeries.ts';
import { FIGURES, type Figures } from '../../src/campaigns/reportSeriesSchemas.ts';
import { sql, type Tx } from '../../src/db/pool.ts';
import { workspace } from '../events/support.ts';
import { inRolledBack } from '../support/helpers.ts';
import { createCampaign } from './support.ts';

/** A draw in [0, 1) of a message and a row of values, the same on every run. */
const draw = sql.fragment`(('x' || substr(md5(m.id || t.k), 1, 8))::bit(32)::int & 1023) / 1024::float8`;
/** Another, to pick rows (independent of the first). */
const chance = sql.fragment`(('x' || substr(md5(t.k || m.id), 1, 8))::bit(32)::int & 1023) / 1024::float8`;

/** Timeline entries: type, detail, the share of sent messages that get one. */
const ENTRIES: [string, Record<string, string>, number][] = [
  ['delivered', {}, 0.8],
  ['delivered', {}, 0.1],
  ['opened', {}, 0.5],
  ['clicked', { url: 'https://a.test' }, 0.4],
  ['clicked', { url: 'https://b.test' }, 0.3],
  ['complained', {}, 0.05],
  ['unsubscribed', {}, 0.1],
  ['unsubscribed', {}, 0.05],
  ['bounced', { bounceType: 'soft' }, 0.1],
  ['bounced', { bounceType: 'soft' }, 0.1],
  ['bounced', { bounceType: 'hard' }, 0.05],
  ['bounced', {}, 0.03],
  ['sent', {}, 1],
];

/** 700 messages of three campaigns and none over 40 days, with their timelines, hits and enrollments. */
async function history(tx: Tx, workspaceId: string, campaignIds: string[]) {
  const contacts = [`${workspaceId}_kept`, `${workspaceId}_erased`];
  for (const id of contacts)
    await tx.query(sql.unsafe`insert into contacts (workspace_id, id) values (${workspaceId}, ${id})`);
  await tx.query(sql.unsafe`
    insert into messages (workspace_id, id, contact_id, channel, campaign_id, status, sent_at, template)
    select ${workspaceId}, ${workspaceId} || '_m' || n, (${sql.array(contacts, 'text')})[1 + (n % 9 = 0)::int],
      'email', case when n % 5 = 0 then null else (${sql.array(campaignIds, 'text')})[1 + (n / 2) % 3] end,
      (array['queued', 'sent', 'sent', 'failed', 'bounced', 'sent'])[1 + n % 6],
      case when n % 6 in (1, 2, 4, 5) then now() - (n % 40) * interval '1 day' - (n % 24) * interval '1 hour' end,
      '{}'
    from generate_series(1, 700) n`);
  // Entries of each kind, spread over the 40 days: a message clicked, unsubscribed or soft-bounced
  // on several days, delivered twice now and then; then later statements, some recorded after
  // entries of their message with an earlier time.
  for (const [batch, within] of [
    ['a', '40 days'],
    ['b', '40 days'],
    ['c', '3 days'],
  ] as const) {
    const kinds = sql.join(
      ENTRIES.map(
        ([type, detail, p], i) =>
          sql.fragment`(${batch + i}, ${type}, ${JSON.stringify(detail)}::jsonb, ${p}::float8)`,
      ),
      sql.fragment`, `,
    );
    await tx.query(sql.unsafe`
      insert into message_events (workspace_id, message_id, type, detail, occurred_at)
      select m.workspace_id, m.id, t.type, t.detail, now() - ${draw} * ${within}::interval
      from messages m, (values ${kinds}) t(k, type, detail, p)
      where m.workspace_id = ${workspaceId} and m.sent_at is not null
        and ${chance} < t.p`);
  }
  for (const type of ['clicked', 'unsubscribed', 'complained', 'bounced']) {
    await tx.query(sql.unsafe`
      insert into message_events (workspace_id, message_id, type, detail, occurred_at)
      select workspace_id, message_id, type, detail, occurred_at - interval '26 hours'
      from message_events where workspace_id = ${workspaceId} and type = ${type}
      order by id limit 1`);
  }
  // Hits as requests record them: a person's unsettled, a scanner's and a proxy's settled at once.
  await tx.query(sql.unsafe`
    insert into message_hits (workspace_id, message_id, kind, url, method, human, reasons, occurred_at, classified_at)
    select m.workspace_id, m.id, t.kind, t.url, 'GET', t.reasons = '{}', t.reasons, now() - ${draw} * interval '40 days',
      case when t.reasons <> '{}' then now() end
    from messages m, (values ('open', 'h1', null, '{}'::text[]), ('open', 'h2', null, '{}'),
      ('click', 'h3', 'https://a.test', '{}'), ('open', 'h4', null, '{scanner}'), ('open', 'h5', null, '{mail_proxy}'),
      ('click', 'h6', 'https://a.test', '{scanner}'), ('click', 'h7', 'https://b.test', '{mail_proxy}'),
      ('honeypot', 'h8', null, '{honeypot}'), ('click', 'h9', 'https://a.test', '{}'),
      ('click', 'h10', 'https://long.test/' || repeat('x', 3000), '{}')) t(kind, k, url, reasons)
    where m.workspace_id = ${workspaceId} and m.sent_at is not null and ${chance} < 0.6`);
  // The worker settles most, finding some of a person's hits a machine's.
  await tx.query(sql.unsafe`update message_hits set classified_at = now(),
      human = human and id % 5 <> 0, reasons = case when human and id % 5 = 0 then '{prefetch}' else reasons end
    where workspace_id = ${workspaceId} and id % 4 <> 0`);
  // A queued message goes out; a sent one's time is corrected.
  await tx.query(sql.unsafe`update messages set status = 'sent', sent_at = now() - interval '2 hours'
    where workspace_id = ${workspaceId} and status = 'queued' and id like '%1'`);
  await tx.query(sql.unsafe`update messages set sent_at = sent_at - interval '90 minutes'
    where workspace_id = ${workspaceId} and sent_at is not null and id like '%3'`);
  // Enrollments: some convert, on various days; one's conversion is moved, another's undone.
  await tx.query(sql.unsafe`
    insert into enrollments (workspace_id, id, campaign_id, contact_id, status, step_key)
    select ${workspaceId}, ${workspaceId} || '_e' || n, (${sql.array(campaignIds, 'text')})[1 + n % 3],
      (${sql.array(contacts, 'text')})[1 + (n % 9 = 0)::int], 'active', null
    from generate_series(1, 200) n`);
  await tx.query(sql.unsafe`update enrollments
    set status = case when id like '%3' then 'completed' else 'converted' end,
      completed_at = now() - (substring(id from '_e([0-9]+)$')::int * 7 % 40) * interval '1 day'
        - (substring(id from '_e([0-9]+)$')::int % 24) * interval '1 hour'
    where workspace_id = ${workspaceId} and (id like '%3' or id like '%5' or id like '%7')`);
  await tx.query(sql.unsafe`update enrollments set completed_at = completed_at - interval '3 days'
    where workspace_id = ${workspaceId} and id like '%15'`);
  await tx.query(sql.unsafe`update enrollments set status = 'active', completed_at = null
    where workspace_id = ${workspaceId} and id like '%25'`);
  // Retention prunes settled hits and finished messages; a contact is erased with their messages.
  await tx.query(sql.unsafe`delete from message_hits
    where workspace_id = ${workspaceId} and classified_at is not null and occurred_at < now() - interval '30 days'`);
  await tx.query(sql.unsafe`delete from messages
    where workspace_id = ${workspaceId} and status in ('sent', 'failed', 'bounced') and id like '%8'`);
  await tx.query(sql.unsafe`delete from contacts where id = ${contacts[1]!}`);
  // The third campaign is deleted: its messages stay in the workspace's report.
  await tx.query(
    sql.unsafe`delete from campaigns where workspace_id = ${workspaceId} and id = ${campaignIds[2]!}`,
  );
}

const Counted = z.object({ at: z.string(), metric: z.string(), n: z.number() });
const Link = z.object({ url: z.string(), humanClicks: z.number(), machineClicks: z.number() });

/** The figures per bucket as the report counted them from the rows before the counters. */
async function fromRows(
  tx: Tx,
  workspaceId: string,
  campaignId: string | null,
  query: ReportQueryInput,
  now: Date,
) {
  const period = resolvePeriod(query, now);
  const bucket = sql.fragment`${`1 ${period.bucket}`}::interval`;
  const from = period.from.toISOString();
  const to = period.to.toISOString();
  const ofCampaign = (alias: string) =>
    campaignId
      ? sql.fragment`and ${sql.identifier([alias])}.message_id in (select id from messages
        where workspace_id = ${workspaceId} and campaign_id = ${campaignId})`
      : sql.fragment``;
  const entries = sql.fragment`e.workspace_id = ${workspaceId} and e.occurred_at >= ${from}::timestamptz
    and e.occurred_at < ${to}::timestamptz ${ofCampaign('e')}`;
  const rows = await tx.any(sql.type(Counted)`
    select date_bin(${bucket}, m.sent_at, '2000-01-01Z') as at, 'sent' as metric, count(*)::int as n
    from messages m
    where m.workspace_id = ${workspaceId} and (${campaignId}::text is null or m.campaign_id = ${campaignId})
      and m.sent_at >= ${from}::timestamptz and m.sent_at < ${to}::timestamptz
    group by 1
    union all
    select date_bin(${bucket}, e.occurred_at, '2000-01-01Z'),
      case e.type when 'delivered' then 'delivered' else 'humanOpens' end, count(*)::int
    from message_events e where ${entries} and e.type in ('delivered', 'opened')
    group by 1, 2
    union all
    select date_bin(${bucket}, first_at, '2000-01-01Z'), metric, count(*)::int
    from (
      select e.message_id, min(e.occurred_at) as first_at,
        case e.type when 'clicked' then 'humanClicks' when 'complained' then 'complaints' else 'unsubscribes' end as metric
      from message_events e where ${entries} and e.type in ('clicked', 'complained', 'unsubscribed')
      group by e.message_id, e.type
      union all
      select e.message_id, min(e.occurred_at),
        case when e.detail ->> 'bounceType' = 'soft' then 'softBounces' else 'hardBounces' end
      from message_events e where ${entries} and e.type = 'bounced'
      group by e.message_id, 3
    ) firsts
    group by 1, 2
    union all
    select date_bin(${bucket}, h.occurred_at, '2000-01-01Z'),
      case when h.kind <> 'open' then 'machineClicks' when 'mail_proxy' = any(h.reasons) then 'proxyOpens'
        else 'machineOpens' end, count(*)::int
    from message_hits h
    where h.workspace_id = ${workspaceId} and not h.human
      and h.occurred_at >= ${from}::timestamptz and h.occurred_at < ${to}::timestamptz ${ofCampaign('h')}
    group by 1, 2
    union all
    select date_bin(${bucket}, e.completed_at, '2000-01-01Z'), 'conversions', count(*)::int
    from enrollments e
    where e.workspace_id = ${workspaceId} and (${campaignId}::text is null or e.campaign_id = ${campaignId})
      and e.status = 'converted' and e.completed_at >= ${from}::timestamptz and e.completed_at < ${to}::timestamptz
    group by 1`);
  // A link with only hits the worker has not settled yet is listed once one is settled.
  const links = await tx.any(sql.type(Link)`
    select url, human_clicks as "humanClicks", machine_clicks as "machineClicks" from (
      select h.url,
        count(distinct h.message_id) filter (where h.human and h.classified_at is not null)::int as human_clicks,
        count(*) filter (where not h.human)::int as machine_clicks
      from message_hits h
      where h.workspace_id = ${workspaceId} and h.kind = 'click' and h.url is not null
        and h.occurred_at >= ${from}::timestamptz and h.occurred_at < ${to}::timestamptz ${ofCampaign('h')}
      group by h.url
    ) l
    where human_clicks > 0 or machine_clicks > 0
    order by 2 desc, 3 desc, 1
    limit 100`);
  const series = new Map(
    period.buckets.map((at) => [at.toISOString(), Object.fromEntries(FIGURES.map((f) => [f, 0])) as Figures]),
  );
  for (const row of rows) series.get(row.at)![row.metric as keyof Figures] += row.n;
  return { series: [...series].map(([at, figures]) => ({ at, ...figures })), links };
}

const Reads = z.object({ relname: z.string(), scans: z.number() });

/** Scans of the timeline and enrollment tables so far in this transaction. */
async function timelineScans(tx: Tx) {
  const rows = await tx.any(sql.type(Reads)`
    select relname::text, (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::int as scans
    from pg_stat_xact_user_tables where relname in ('message_events', 'enrollments')`);
  return Object.fromEntries(rows.map((row) => [row.relname, row.scans]));
}

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

const QUERIES: ReportQueryInput[] = [
  { period: '24h', bucket: 'hour' },
  { period: '7d', bucket: 'day' },
  { period: '30d', bucket: 'day' },
  { period: '30d', bucket: 'hour' },
  { period: '90d', bucket: 'day' },
  // Periods that start inside the history: a message's earlier entries are before them.
  { period: 'custom', from: day(20), to: day(5), bucket: 'day' },
  { period: 'custom', from: day(12), to: day(1), bucket: 'hour' },
];

describe('campaigns: report series from hourly counters', () => {
  it('reads a campaign’s and the workspace’s series from counters equal to the rows’ count', async function () {
    this.timeout(60_000);
    const { admin, base, workspaceId } = await workspace({ listening: false });
    const ids: string[] = [];
    for (const name of ['First', 'Second', 'Deleted'])
      ids.push((await createCampaign(admin, base, { name })).id);
    await inRolledBack(async (tx) => {
      await history(tx, workspaceId, ids);
      const nonZero = new Set<string>();
      const now = new Date();
      for (const query of QUERIES) {
        for (const campaignId of [ids[0]!, null]) {
          const scans = await timelineScans(tx);
          const report = campaignId
            ? await campaignPeriodReport(tx, workspaceId, campaignId, query, now)
            : await workspaceReport(tx, workspaceId, query, now);
          expect(await timelineScans(tx), 'no timeline entry or enrollment read').to.deep.equal(scans);
          const label = `${campaignId ? 'campaign' : 'workspace'} ${JSON.stringify(query)}`;
          const rows = await fromRows(tx, workspaceId, campaignId, query, now);
          expect(report.series, label).to.deep.equal(rows.series);
          expect(report.links, `${label} links`).to.deep.equal(rows.links);
          if (report.links.some((link) => link.humanClicks > 0)) nonZero.add(`${label} links`);
          for (const figure of FIGURES) if (report.totals[figure] > 0) nonZero.add(`${label} ${figure}`);
        }
      }
      // Every figure and the links counted something in the 30 days, for the campaign and the workspace.
      for (const scope of ['campaign', 'workspace'])
        for (const figure of [...FIGURES, 'links'])
          expect(
            nonZero.has(`${scope} {"period":"30d","bucket":"hour"} ${figure}`),
            `${scope} ${figure}`,
          ).to.equal(true);
    });
  });
});
