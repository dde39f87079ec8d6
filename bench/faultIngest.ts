// The ingest workspace of bench/faults.ts and its checker. Every event of the load is a purchase
// or a page view of a known contact; the workspace has a scoring rule for each (+10, +1), a
// campaign triggered by purchases (reentry always, a long wait step), and two segments whose
// membership follows from the stored rows alone, and an endpoint listening to `event.tracked` (ingest
// writes outbox rows only for types some endpoint listens to). So for every stored event the checker knows
// what must exist beside it, and finds it or counts the event half-applied:
//   - one outgoing `event.tracked` (the outbox) carrying its metadata;
//   - one score change with its event id;
//   - a purchase: one enrollment with it as trigger event, and that enrollment's step job;
// and per contact: the lead score equals the sum of its score changes; it is in "buyers" exactly
// when it has two purchases or more, and in "hot" exactly when its score is 25 or more.
import pg from 'pg';
import type { IngestLoad } from './faultLoad.ts';
import type { WebhookReceiver } from './faultReceivers.ts';
import type { Admin } from './faultService.ts';

export type IngestWorkspace = {
  workspaceId: string;
  apiKey: string;
  emails: string[];
  buyers: string;
  hot: string;
};

/** The receiver path of the ingest workspace's endpoint. */
export const INGEST_PATH = 'ingest';

export async function setUpIngest(
  admin: Admin,
  contacts: number,
  receiver: WebhookReceiver,
): Promise<IngestWorkspace> {
  const { workspaceId, apiKey } = await admin.workspace('Ingest under faults');
  await admin.post('/webhooks', { url: receiver.url(INGEST_PATH), events: ['event.tracked'] });
  const buyers = await admin.post('/segments', {
    name: 'Buyers',
    rules: { event: 'purchase', count: { gte: 2 } },
  });
  const hot = await admin.post('/segments', { name: 'Hot', rules: { leadScore: { gte: 25 } } });
  await admin.post('/scoring-rules', { name: 'Purchase', eventType: 'purchase', points: 10 });
  await admin.post('/scoring-rules', { name: 'Page view', eventType: 'page_view', points: 1 });
  const campaign = await admin.post('/campaigns', {
    name: 'After a purchase',
    trigger: { type: 'event', eventType: 'purchase' },
    reentry: 'always',
    steps: [{ type: 'wait', duration: 'P30D' }],
  });
  await admin.post(`/campaigns/${campaign.id}/activate`);
  const emails = Array.from({ length: contacts }, (_, i) => `buyer${i}@ingest.test`);
  await admin.seedContacts(emails);
  return { workspaceId, apiKey, emails, buyers: buyers.id, hot: hot.id };
}

export type IngestCheck = {
  acknowledged: number;
  stored: number;
  lost: number;
  duplicated: number;
  halfApplied: number;
  unanswered: { requests: number; stored: number; events: number };
  problems: string[];
};

async function counts(client: pg.Client, text: string, values: unknown[]) {
  const result = await client.query<{ key: string; n: number }>(text, values);
  return new Map(result.rows.map((row) => [row.key, Number(row.n)]));
}

/** Checks what `load` (run `run`) left in the database; see the top of the file. */
export async function checkIngest(
  databaseUrl: string,
  workspace: IngestWorkspace,
  run: string,
  load: IngestLoad,
): Promise<IngestCheck> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const ws = workspace.workspaceId;
    const events = (
      await client.query<{ id: string; n: number; type: string }>(
        `select id, (metadata->>'n')::int as n, type from events
         where workspace_id = $1 and metadata->>'run' = $2`,
        [ws, run],
      )
    ).rows;
    const outbox = await counts(
      client,
      `select data->'metadata'->>'n' as key, count(*) as n from outgoing_events
       where workspace_id = $1 and type = 'event.tracked' and data->'metadata'->>'run' = $2 group by 1`,
      [ws, run],
    );
    const scores = await counts(
      client,
      `select event_id as key, count(*) as n from score_changes where workspace_id = $1 and event_id is not null group by 1`,
      [ws],
    );
    const enrollments = (
      await client.query<{ id: string; event: string }>(
        `select id, trigger_event_id as event from enrollments where workspace_id = $1`,
        [ws],
      )
    ).rows;
    const stepJobs = await counts(
      client,
      `select data->>'enrollmentId' as key, count(*) as n from pgboss.job where name = 'campaigns.step' group by 1`,
      [],
    );
    const problems: string[] = [];
    const half = new Set<string>();
    const flag = (key: string, why: string) => {
      if (!half.has(key) && problems.length < 10) problems.push(why);
      half.add(key);
    };
    const byEvent = Map.groupBy(enrollments, (row) => row.event);
    const stored = new Set(events.map((event) => event.id));
    const perN = new Map<number, number>();
    for (const event of events) {
      perN.set(event.n, (perN.get(event.n) ?? 0) + 1);
      if (outbox.get(String(event.n)) !== 1)
        flag(event.id, `${event.id}: ${outbox.get(String(event.n)) ?? 0} outbox rows`);
      if (scores.get(event.id) !== 1)
        flag(event.id, `${event.id}: ${scores.get(event.id) ?? 0} score changes`);
      const enrolled = byEvent.get(event.id) ?? [];
      if (enrolled.length !== (event.type === 'purchase' ? 1 : 0))
        flag(event.id, `${event.id} (${event.type}): ${enrolled.length} enrollments`);
      for (const enrollment of enrolled)
        if (!stepJobs.get(enrollment.id)) flag(event.id, `${enrollment.id}: no step job`);
    }
    const storedNs = new Set(perN.keys());
    for (const n of outbox.keys())
      if (!storedNs.has(Number(n))) flag(`n${n}`, `outbox row of n=${n} without its event`);
    for (const orphan of await orphans(client, ws))
      flag(orphan, `${orphan}: its trigger event is not stored`);
    for (const contact of await contactMismatches(client, workspace))
      flag(contact, `${contact}: score or segments disagree with its rows`);

    const answered = load.outcomes.filter((outcome) => outcome.status === 201);
    const lost = answered.flatMap((outcome) => outcome.ids).filter((id) => !stored.has(id)).length;
    const unanswered = load.outcomes.filter((outcome) => outcome.status !== 201);
    let unansweredStored = 0;
    for (const outcome of unanswered) {
      const here = outcome.ns.filter((n) => storedNs.has(n)).length;
      unansweredStored += here;
      if (here !== 0 && here !== outcome.ns.length)
        flag(`batch${outcome.ns[0]}`, `a batch stored ${here} of ${outcome.ns.length}`);
    }
    return {
      acknowledged: load.acknowledged,
      stored: events.length,
      lost,
      duplicated: [...perN.values()].reduce((sum, count) => sum + count - 1, 0),
      halfApplied: half.size,
      unanswered: {
        requests: unanswered.length,
        stored: unansweredStored,
        events: unanswered.reduce((sum, o) => sum + o.ns.length, 0),
      },
      problems,
    };
  } finally {
    await client.end();
  }
}

/** Score changes and enrollments naming an event that is not stored. */
async function orphans(client: pg.Client, workspaceId: string): Promise<string[]> {
  const result = await client.query<{ id: string }>(
    `select id from score_changes s where s.workspace_id = $1 and s.event_id is not null
       and not exists (select 1 from events e where e.id = s.event_id)
     union all
     select id from enrollments n where n.workspace_id = $1 and n.trigger_event_id is not null
       and not exists (select 1 from events e where e.id = n.trigger_event_id)`,
    [workspaceId],
  );
  return result.rows.map((row) => row.id);
}

/** Contacts whose score or segment memberships do not follow from their rows. */
async function contactMismatches(client: pg.Client, workspace: IngestWorkspace): Promise<string[]> {
  const result = await client.query<{ id: string }>(
    `select c.id from contacts c
     where c.workspace_id = $1 and (
       c.lead_score <> coalesce((select sum(s.score - s.previous_score) from score_changes s where s.contact_id = c.id), 0)
       or ((select count(*) from events e where e.contact_id = c.id and e.type = 'purchase') >= 2)
          <> exists (select 1 from segment_memberships m where m.contact_id = c.id and m.segment_id = $2)
       or (c.lead_score >= 25)
          <> exists (select 1 from segment_memberships m where m.contact_id = c.id and m.segment_id = $3))`,
    [workspace.workspaceId, workspace.buyers, workspace.hot],
  );
  return result.rows.map((row) => row.id);
}
