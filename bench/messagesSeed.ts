// bench:console's part two: a million messages over 30 days and their tracking, on top of the
// contacts of bench/segmentsSeed.ts. Four campaigns made through the campaigns service (so their
// definitions are what the API stores), then with generate_series, as the contacts and events are:
// one enrollment per two messages (a first email, a wait, a second email), the messages (sent
// mostly; some failed, bounced, suppressed, queued), their timeline (queued, sent, delivered, the
// odd unsubscribe), and hits of each class: opens by people, by mail privacy proxies and by
// machines (scanners), clicks by people and machines, honeypot clicks. The tables' non-key indexes
// are dropped during the load and made again afterwards, one sort each; the foreign keys are not
// checked row by row (session_replication_role: the rows are made consistent); then VACUUM ANALYZE.
import type pg from 'pg';
import { CreateCampaignBody } from '../src/campaigns/schemas.ts';
import { createCampaign } from '../src/campaigns/service.ts';
import type { AppContext } from '../src/core/context.ts';
import { dropAll, indexesAndKeys } from './segmentsSeed.ts';

export type MessageSeedSize = { workspaceId: string; contacts: number; messages: number; days: number };

const STEP = (subject: string) => ({
  type: 'send',
  channel: 'email',
  subject,
  body: '<p>Hi {{ contact.firstName | default: "there" }},</p><p>News at <a href="https://bench.example/news">our site</a>.</p>',
});

/** The campaigns' definitions: two on events, one broadcast to the large segment, one archived. */
const CAMPAIGNS = [
  { name: 'Welcome series', trigger: { type: 'event', eventType: 'signup' }, status: 'active' },
  { name: 'Purchase follow-up', trigger: { type: 'event', eventType: 'purchase' }, status: 'active' },
  { name: 'Spring news', trigger: { type: 'broadcast', segmentId: 'seg_bench_bought' }, status: 'active' },
  { name: 'Winter sale', trigger: { type: 'event', eventType: 'login' }, status: 'archived' },
];

export type SeededCampaign = { id: string; name: string };
/** The names of the campaigns this seed makes: how a kept database's are found again. */
export const SEEDED_CAMPAIGN_NAMES = CAMPAIGNS.map((campaign) => campaign.name);

async function makeCampaigns(context: AppContext, workspaceId: string): Promise<SeededCampaign[]> {
  const made: SeededCampaign[] = [];
  for (const definition of CAMPAIGNS) {
    const input = CreateCampaignBody.parse({
      name: definition.name,
      trigger: definition.trigger,
      steps: [
        STEP(`${definition.name}: hello`),
        { type: 'wait', duration: 'P2D' },
        STEP(`${definition.name}: more`),
      ],
    });
    const campaign = await createCampaign(context.db, workspaceId, input as never);
    made.push({ id: campaign.id, name: definition.name });
  }
  return made;
}

/**
 * The campaign (1-based) of enrollment `e`: the archived one had a fifth of the first ten days' and
 * nothing since (a filter on it finds nothing among the newest messages); of the rest, half go to
 * the first campaign, 35 % to the second, 15 % to the broadcast.
 */
const CAMPAIGN_OF = (e: string) =>
  `(case when ${e} <= $4 / 6 and ${e} % 5 = 0 then 4 when ${e} % 100 < 50 then 1 when ${e} % 100 < 85 then 2 else 3 end)`;

/**
 * Message n (1..M) belongs to enrollment ceil(n/2) of campaign CAMPAIGN_OF(enrollment), to a contact spread
 * over all of them, step '0' (odd n) or '2' (even n); created evenly over the days, oldest first.
 * One message in 20 is a one-off (no campaign). Statuses: 90 % sent, 4 % failed, 3 % bounced,
 * 2 % suppressed, 1 % queued.
 */
async function insertRows(client: pg.Client, size: MessageSeedSize, campaigns: string[]) {
  const common = [size.workspaceId, size.contacts, size.days, size.messages, campaigns];
  await client.query(`set synchronous_commit = off`);
  await client.query(
    `insert into enrollments (workspace_id, id, campaign_id, contact_id, status, current_step, step_key, enrolled_at, completed_at)
     select $1, 'enr_bench' || lpad(e::text, 9, '0'), ($5::text[])[${CAMPAIGN_OF('e')}],
            'ct_bench' || lpad((1 + (e::bigint * 7919) % $2)::text, 8, '0'),
            case when e % 10 < 7 then 'completed' when e % 10 < 9 then 'active' else 'exited' end,
            case when e % 10 < 7 then 3 else 2 end, case when e % 10 between 7 and 8 then '2' end,
            now() - make_interval(days => $3) * (1 - (e - 0.5) / ($4 / 2.0)),
            case when e % 10 < 7 then now() - make_interval(days => $3) * (1 - (e - 0.5) / ($4 / 2.0)) + interval '2 days' end
     from generate_series(1, $4 / 2) as e`,
    common,
  );
  await client.query(
    `update enrollments set exit_reason = 'manual' where workspace_id = $1 and status = 'exited'`,
    [size.workspaceId],
  );
  await client.query(
    `insert into messages (workspace_id, id, contact_id, channel, campaign_id, enrollment_id, step_key, status,
                           template, recipient, rendered_at, rendered_subject, rendered, provider_id, error,
                           attempts, created_at, sent_at, updated_at)
     select $1, 'msg_bench' || lpad(n::text, 9, '0'), 'ct_bench' || lpad(contact::text, 8, '0'), 'email',
            case when one_off then null else ($5::text[])[${CAMPAIGN_OF('e')}] end,
            case when one_off then null else 'enr_bench' || lpad(e::text, 9, '0') end,
            case when one_off then null when n % 2 = 1 then '0' else '2' end,
            status, jsonb_build_object('subject', 'News for {{ contact.firstName }}', 'html', '<p>News</p>'),
            'c' || contact || '@example.com', case when status <> 'queued' then t end,
            case when status in ('sent', 'bounced', 'failed') then 'News for you ' || n end,
            case when status in ('sent', 'bounced', 'failed') then jsonb_build_object('channel', 'email',
              'subject', 'News for you ' || n, 'html', '<p>News</p>', 'text', 'News') end,
            case when status in ('sent', 'bounced') then '<bench.' || n || '@mail.example>' end,
            case status when 'failed' then '550 mailbox unavailable' when 'suppressed' then 'unsubscribed from email' end,
            case when status = 'queued' then 0 else 1 end, t, case when status in ('sent', 'bounced') then t end, t
     from (select n, (n + 1) / 2 as e, n % 20 = 0 as one_off,
                  1 + ((((n + 1) / 2)::bigint * 7919) % $2) as contact,
                  case when n % 100 < 90 then 'sent' when n % 100 < 94 then 'failed' when n % 100 < 97 then 'bounced'
                       when n % 100 < 99 then 'suppressed' else 'queued' end as status,
                  now() - make_interval(days => $3) * (1 - (n - 0.5) / $4) as t
           from generate_series(1, $4) as n) as g`,
    common,
  );
  // Each message's timeline: queued, then sent (and delivered, for most sent ones) or its outcome.
  await client.query(
    `insert into message_events (workspace_id, message_id, type, detail, occurred_at)
     select m.workspace_id, m.id, x.type, '{}', m.created_at + x.after
     from messages m cross join lateral (values ('queued', interval '0'), (case m.status when 'sent' then 'sent'
       when 'bounced' then 'bounced' when 'failed' then 'failed' when 'suppressed' then 'suppressed' end, interval '2 seconds'),
       (case when m.status = 'sent' and right(m.id, 1) <> '7' then 'delivered' end, interval '9 seconds'),
       (case when m.status = 'sent' and right(m.id, 3) = '123' then 'unsubscribed' end, interval '1 day')) as x(type, after)
     where m.workspace_id = $1 and x.type is not null`,
    [size.workspaceId],
  );
  // Hits on sent messages: 40 % opened by a person (a third twice), 15 % by a privacy proxy, 10 %
  // by a scanner; 8 % clicked by a person, 3 % by a scanner, 0.5 % a honeypot link.
  await client.query(
    `insert into message_hits (workspace_id, message_id, kind, url, method, user_agent, human, reasons, occurred_at, classified_at)
     select m.workspace_id, m.id, h.kind, h.url, 'GET', h.agent, h.human, h.reasons, m.created_at + h.after, m.created_at + h.after
     from (select workspace_id, id, created_at, hashtext(id) & 1023 as r from messages
           where workspace_id = $1 and status = 'sent') as m
     cross join lateral (values
       ('open', null, 'Mozilla/5.0 (Macintosh)', true, '{}'::text[], interval '2 hours', m.r < 410),
       ('open', null, 'Mozilla/5.0 (Macintosh)', true, '{}', interval '1 day', m.r < 137),
       ('open', null, 'Mozilla/5.0 (via ggpht.com GoogleImageProxy)', false, '{mail_proxy}', interval '10 minutes', m.r between 410 and 563),
       ('open', null, 'Barracuda scanner', false, '{too_fast}', interval '3 seconds', m.r between 564 and 666),
       ('click', 'https://bench.example/news', 'Mozilla/5.0 (Macintosh)', true, '{}', interval '3 hours', m.r < 82),
       ('click', 'https://bench.example/news', 'Barracuda scanner', false, '{too_fast}', interval '4 seconds', m.r between 700 and 730),
       ('honeypot', 'https://bench.example/trap', 'Barracuda scanner', false, '{honeypot}', interval '4 seconds', m.r between 731 and 735)
     ) as h(kind, url, agent, human, reasons, after, taken)
     where h.taken`,
    [size.workspaceId],
  );
}

/** Seeds the messages of `size`; returns the campaigns and the seconds it took. */
export async function seedMessages(client: pg.Client, context: AppContext, size: MessageSeedSize) {
  const started = performance.now();
  const campaigns = await makeCampaigns(context, size.workspaceId);
  for (const [i, definition] of CAMPAIGNS.entries()) {
    await client.query(
      `update campaigns set status = $3, activated_at = now() - interval '31 days' where workspace_id = $1 and id = $2`,
      [size.workspaceId, campaigns[i]!.id, definition.status],
    );
  }
  const tables = ['message_hits', 'message_events', 'messages', 'enrollments'];
  const definitions = new Map<string, Awaited<ReturnType<typeof indexesAndKeys>>>();
  for (const table of tables) {
    const found = (await indexesAndKeys(client, table)).filter((d) => d.kind === 'index');
    definitions.set(table, found);
    await dropAll(client, table, found);
  }
  await client.query(`set session_replication_role = replica`);
  await insertRows(
    client,
    size,
    campaigns.map((campaign) => campaign.id),
  );
  await client.query(`reset session_replication_role`);
  // The triggers were off: the reports' hourly counters are counted from the rows once.
  await client.query(`select switchboard_count_report_hours_of_rows($1)`, [size.workspaceId]);
  await client.query(`set maintenance_work_mem = '1GB'`);
  for (const table of [...tables].reverse()) {
    for (const { definition } of definitions.get(table)!) await client.query(definition);
  }
  await client.query(`reset maintenance_work_mem`);
  await client.query(`vacuum (analyze) enrollments, messages, message_events, message_hits`);
  return { campaigns, seconds: (performance.now() - started) / 1000 };
}
