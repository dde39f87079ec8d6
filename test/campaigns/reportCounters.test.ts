// A campaign's figures at a million messages (bench:console measures the list and a campaign's
// page): the report's enrollment and per-step message counts, the list's 30-day sparklines and the
// flow's waiting and delivered are read from counters kept as messages, their timeline and their hits change
// (sql/0060), not counted from the rows, and they are the figures the rows give: after inserts,
// status changes, a second delivery, classification (and a person's hit settled as a machine's),
// hits pruned and a contact erased with their messages.
import { expect } from 'chai';
import { z } from 'zod';
import { dailyFiguresOf, enrollmentCountsOf, stepFiguresOf } from '../../src/campaigns/consoleQueries.ts';
import { campaignReport } from '../../src/campaigns/report.ts';
import { sql, type Tx } from '../../src/db/pool.ts';
import { workspace } from '../events/support.ts';
import { inRolledBack } from '../support/helpers.ts';
import { createCampaign } from './support.ts';

/** 900 messages of two campaigns over ten days, with timelines and hits of every class. */
async function history(tx: Tx, workspaceId: string, campaignIds: string[], stepKeys: string[]) {
  const contacts = [`${workspaceId}_kept`, `${workspaceId}_erased`];
  for (const id of contacts)
    await tx.query(sql.unsafe`insert into contacts (workspace_id, id) values (${workspaceId}, ${id})`);
  await tx.query(sql.unsafe`
    insert into messages (workspace_id, id, contact_id, channel, campaign_id, step_key, status, sent_at, template)
    select ${workspaceId}, ${workspaceId} || '_m' || n, (${sql.array(contacts, 'text')})[1 + (n % 4 = 0)::int], 'email',
      (${sql.array(campaignIds, 'text')})[1 + (n % 7 = 0)::int],
      case when n % 5 = 0 then null else (${sql.array(stepKeys, 'text')})[1 + n % ${stepKeys.length}] end,
      (array['queued', 'sending', 'sent', 'failed', 'bounced', 'suppressed'])[1 + n % 6],
      case when n % 6 in (2, 4) then now() - (n % 10) * interval '1 day' end, '{}'
    from generate_series(1, 900) n`);
  // One message in nine has two deliveries; one in eleven an unsubscribe.
  await tx.query(sql.unsafe`insert into message_events (workspace_id, message_id, type)
    select workspace_id, id, 'delivered' from messages where workspace_id = ${workspaceId} and status = 'sent'`);
  await tx.query(sql.unsafe`insert into message_events (workspace_id, message_id, type)
    select workspace_id, id, t from messages, unnest(array['delivered', 'unsubscribed']) t
    where workspace_id = ${workspaceId} and ((t = 'delivered' and status = 'sent' and random() < 0.3)
      or (t = 'unsubscribed' and random() < 0.1))`);
  // Hits as requests record them: a person's unsettled, a scanner's and a proxy's settled at once.
  await tx.query(sql.unsafe`
    insert into message_hits (workspace_id, message_id, kind, method, human, reasons, occurred_at)
    select workspace_id, id, kind, 'GET', reasons = '{}', reasons, now() - (random() * 12) * interval '1 day'
    from messages, lateral (values ('open', '{}'::text[]), ('open', '{}'), ('click', '{}'), ('open', '{scanner}'),
      ('open', '{mail_proxy}'), ('click', '{scanner}'), ('honeypot', '{honeypot}')) h(kind, reasons)
    where workspace_id = ${workspaceId} and status in ('sent', 'bounced') and random() < 0.5`);
  // The worker settles most, finding some of a person's hits a machine's.
  await tx.query(sql.unsafe`update message_hits set classified_at = now(),
      human = human and id % 5 <> 0, reasons = case when human and id % 5 = 0 then '{prefetch}' else reasons end
    where workspace_id = ${workspaceId} and id % 4 <> 0`);
  await tx.query(sql.unsafe`update messages set status = 'sent', sent_at = now()
    where workspace_id = ${workspaceId} and status = 'queued' and id like '%1'`);
  await tx.query(sql.unsafe`update messages set attempts = attempts + 1 where workspace_id = ${workspaceId}`);
  // Enrollments along the steps; some move on, finish or convert.
  await tx.query(sql.unsafe`
    insert into enrollments (workspace_id, id, campaign_id, contact_id, status, step_key)
    select ${workspaceId}, ${workspaceId} || '_e' || n, (${sql.array(campaignIds, 'text')})[1 + (n % 7 = 0)::int],
      (${sql.array(contacts, 'text')})[1 + (n % 4 = 0)::int], 'active',
      case when n % 9 = 0 then null else (${sql.array(stepKeys, 'text')})[1 + n % ${stepKeys.length}] end
    from generate_series(1, 300) n`);
  await tx.query(sql.unsafe`update enrollments set step_key = ${stepKeys.at(-1)!}
    where workspace_id = ${workspaceId} and id like '%3'`);
  await tx.query(sql.unsafe`update enrollments
    set status = (array['completed', 'converted', 'exited'])[1 + length(id) % 3], step_key = null
    where workspace_id = ${workspaceId} and id like '%5'`);
  // Retention prunes some settled hits; a contact is erased with their messages and enrollments.
  await tx.query(sql.unsafe`delete from message_hits
    where workspace_id = ${workspaceId} and classified_at is not null and id % 9 = 0`);
  await tx.query(sql.unsafe`delete from contacts where id = ${contacts[1]!}`);
}

const Reads = z.object({ relname: z.string(), scans: z.number() });

/** Scans of the message and enrollment tables so far in this transaction. */
async function messageTableScans(tx: Tx) {
  const rows = await tx.any(sql.type(Reads)`
    select relname::text, (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::int as scans
    from pg_stat_xact_user_tables where relname in ('messages', 'message_events', 'message_hits', 'enrollments')`);
  return Object.fromEntries(rows.map((row) => [row.relname, row.scans]));
}

const Counted = z.record(z.string(), z.unknown());

/** The figures counted from the rows, as the pages counted them before the counters. */
async function fromRows(tx: Tx, workspaceId: string, campaignId: string, ids: string[], since: string) {
  const human = (kind: string) => sql.fragment`exists (select 1 from message_hits h
    where h.message_id = m.id and h.kind = ${kind} and h.human and h.classified_at is not null)`;
  const other = (kinds: string[], proxy: boolean) => sql.fragment`(select count(*) from message_hits h
    where h.message_id = m.id and h.kind = any(${sql.array(kinds, 'text')}) and not h.human
      and ('mail_proxy' = any(h.reasons)) = ${proxy})`;
  const event = (type: string) =>
    sql.fragment`exists (select 1 from message_events e where e.message_id = m.id and e.type = ${type})`;
  const steps = await tx.any(sql.type(Counted)`
    select m.step_key,
      count(*) filter (where m.status in ('queued', 'sending'))::int as queued,
      count(*) filter (where m.status = 'sent')::int as sent,
      count(*) filter (where m.status = 'failed')::int as failed,
      count(*) filter (where m.status = 'bounced')::int as bounced,
      count(*) filter (where m.status = 'suppressed')::int as suppressed,
      count(*) filter (where ${event('unsubscribed')})::int as unsubscribes,
      count(*) filter (where ${human('open')})::int as "uniqueOpens",
      count(*) filter (where ${human('click')})::int as "uniqueClicks",
      coalesce(sum(${other(['open'], false)}), 0)::int as "machineOpens",
      coalesce(sum(${other(['click', 'honeypot'], false)}), 0)::int as "machineClicks",
      coalesce(sum(${other(['open'], true)}), 0)::int as "proxyOpens",
      count(*) filter (where ${event('delivered')})::int as delivered
    from messages m where m.workspace_id = ${workspaceId} and m.campaign_id = ${campaignId}
    group by m.step_key`);
  const daily = await tx.any(sql.type(Counted)`
    select campaign_id, day::text, sum(sent)::int as sent, sum(opens)::int as opens, sum(clicks)::int as clicks
    from (
      select m.campaign_id, (m.sent_at at time zone 'UTC')::date as day, count(*) as sent, 0 as opens, 0 as clicks
      from messages m where m.workspace_id = ${workspaceId} and m.campaign_id = any(${sql.array(ids, 'text')})
        and (m.sent_at at time zone 'UTC')::date >= ${since}::date
      group by 1, 2
      union all
      select m.campaign_id, (h.occurred_at at time zone 'UTC')::date, 0,
        count(distinct m.id) filter (where h.kind = 'open'), count(distinct m.id) filter (where h.kind = 'click')
      from messages m join message_hits h on h.message_id = m.id
      where m.workspace_id = ${workspaceId} and m.campaign_id = any(${sql.array(ids, 'text')})
        and h.human and h.classified_at is not null and (h.occurred_at at time zone 'UTC')::date >= ${since}::date
      group by 1, 2
    ) figures group by 1, 2 order by 1, 2`);
  const enrollments = await tx.one(sql.type(Counted)`
    select count(*)::int as enrolled, count(*) filter (where status = 'active')::int as active,
      count(*) filter (where status = 'completed')::int as completed,
      count(*) filter (where status = 'converted')::int as converted,
      count(*) filter (where status = 'exited')::int as exited
    from enrollments where workspace_id = ${workspaceId} and campaign_id = ${campaignId}`);
  const waiting = await tx.any(sql.type(Counted)`
    select step_key, count(*)::int as waiting from enrollments
    where workspace_id = ${workspaceId} and campaign_id = ${campaignId} and status = 'active' and step_key is not null
    group by step_key`);
  return { steps, daily, enrollments, waiting };
}

describe('campaigns: figures from counters', () => {
  it('reads the report, the sparklines and the flow’s figures from counters equal to the rows’ count', async () => {
    const { admin, base, workspaceId } = await workspace({ listening: false });
    const campaign = await createCampaign(admin, base);
    const other = await createCampaign(admin, base, { name: 'Other' });
    const ids = [campaign.id, other.id];
    const since = new Date(Date.now() - 8 * 86_400_000).toISOString().slice(0, 10);
    await inRolledBack(async (tx) => {
      const empty = await campaignReport(tx, workspaceId, campaign.id);
      const stepKeys = empty.steps.filter((step) => step.type === 'send').map((step) => String(step.stepKey));
      await history(tx, workspaceId, ids, stepKeys);

      // The report's split paths are the one figure still read from the enrollments (by an index).
      let scans = await messageTableScans(tx);
      const report = await campaignReport(tx, workspaceId, campaign.id);
      const { enrollments: _paths, ...messageScans } = await messageTableScans(tx);
      const { enrollments: _before, ...messageScansBefore } = scans;
      expect(messageScans, 'no message, timeline entry or hit read').to.deep.equal(messageScansBefore);
      scans = await messageTableScans(tx);
      const daily = await dailyFiguresOf(tx, workspaceId, ids, since);
      const stepFigures = await stepFiguresOf(tx, workspaceId, campaign.id);
      const listed = await enrollmentCountsOf(tx, workspaceId, ids);
      expect(await messageTableScans(tx), 'no message, timeline entry, hit or enrollment read').to.deep.equal(
        scans,
      );

      const rows = await fromRows(tx, workspaceId, campaign.id, ids, since);
      const sorted = [...daily].sort((a, b) =>
        `${a.campaign_id} ${a.day}`.localeCompare(`${b.campaign_id} ${b.day}`),
      );
      expect(sorted).to.deep.equal(rows.daily);
      expect(rows.daily.length).to.be.greaterThan(10);
      expect(report.enrollments).to.deep.equal(rows.enrollments);
      const { enrolled, active, completed, converted } = rows.enrollments as Record<string, number>;
      const inList = listed.find((row) => row.campaign_id === campaign.id);
      expect(inList).to.deep.equal({
        campaign_id: campaign.id,
        enrolled,
        active,
        completed: completed + converted,
      });
      expect(Object.values(rows.enrollments).every((n) => Number(n) > 0)).to.equal(true);
      for (const { step_key, waiting } of rows.waiting) {
        expect(stepFigures.find((row) => row.step_key === step_key)?.waiting, String(step_key)).to.equal(
          waiting,
        );
      }
      for (const step of report.steps.filter((step) => step.type === 'send')) {
        const {
          step_key,
          delivered: deliveredThere,
          ...counts
        } = rows.steps.find((row) => row.step_key === step.stepKey)!;
        expect(step.messages, String(step_key)).to.deep.include(counts);
        expect(stepFigures.find((row) => row.step_key === step.stepKey)?.delivered).to.equal(deliveredThere);
      }
      for (const name of [
        'queued',
        'sent',
        'failed',
        'suppressed',
        'uniqueOpens',
        'machineClicks',
        'proxyOpens',
      ]) {
        const total = rows.steps.reduce((sum, row) => sum + Number(row[name]), 0);
        expect(report.messages[name as keyof typeof report.messages], name).to.equal(total);
        expect(total, name).to.be.greaterThan(0);
      }
    });
  });
});
