// Retention: `switchboard prune --dry-run` counts what each rule would delete, `prune` deletes it in
// batches and nothing else, limits that are unset keep everything, and the worker schedules it.
import { expect } from 'chai';
import type { DatabasePool } from 'slonik';
import { firstIdAt } from '../../src/db/ids.ts';
import { createDatabasePool, sql } from '../../src/db/pool.ts';
import { runCli } from '../support/cli.ts';
import { server } from '../support/server.ts';
import { dropScratchDatabase, scratchDatabase } from '../support/spawnedWorker.ts';

const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number) => new Date(Date.now() - days * DAY);
/** The nth id of a kind made `days` ago (ids sort by the time they were made). */
const idAgo = (kind: Parameters<typeof firstIdAt>[0], days: number, n: number) =>
  firstIdAt(kind, ago(days)).slice(0, -4) + String(n).padStart(4, '0');

type Report = { table: string; rows: number | null }[];
const rowsOf = (report: Report) => Object.fromEntries(report.map((entry) => [entry.table, entry.rows]));

async function seed(db: DatabasePool) {
  const at = (days: number) => ago(days).toISOString();
  await db.query(sql.unsafe`insert into workspaces (id, name) values ('ws_ret', 'Retention')`);
  await db.query(
    sql.unsafe`insert into contacts (workspace_id, id, email) values ('ws_ret', 'ct_ret', 'r@example.com')`,
  );
  await db.query(sql.unsafe`
    insert into webhook_endpoints (workspace_id, id, name, direction, url)
    values ('ws_ret', 'whe_ret', 'r', 'OUTBOUND', 'https://example.com')`);
  // 25 delivery records 40 days old, 2 from yesterday.
  for (const [days, count] of [
    [40, 25],
    [1, 2],
  ]) {
    for (let n = 0; n < count; n++)
      await db.query(sql.unsafe`
        insert into webhook_deliveries (workspace_id, id, endpoint_id, direction, attempt, duration_ms, success, created_at)
        values ('ws_ret', ${idAgo('delivery', days, n)}, 'whe_ret', 'OUTBOUND', 1, 5, true, ${at(days)})`);
  }
  // Old messages: one finished (goes), one still pending (stays), one failed and replayed: its
  // manual attempt is queued, so it stays (no foreign key would take the attempt along); their
  // outgoing events, fanned out.
  for (const [n, status] of [
    [0, 'succeeded'],
    [1, 'pending'],
    [2, 'failed'],
  ] as const) {
    await db.query(sql.unsafe`
      insert into outgoing_events (workspace_id, id, type, data, occurred_at, fanned_out_at)
      values ('ws_ret', ${idAgo('outgoingEvent', 40, n)}, 'contact.created', '{}', ${at(40)}, ${at(40)})`);
    await db.query(sql.unsafe`
      insert into webhook_messages (workspace_id, id, endpoint_id, outgoing_event_id, event, body, status, created_at)
      values ('ws_ret', ${idAgo('webhookMessage', 40, n)}, 'whe_ret', ${idAgo('outgoingEvent', 40, n)},
        'contact.created', '{}', ${status}, ${at(40)})`);
  }
  await db.query(sql.unsafe`
    insert into webhook_attempts (workspace_id, id, message_id, endpoint_id, attempt, trigger, due_at)
    select workspace_id, 'dlv_replayed', id, endpoint_id, 2, 'manual', now() + interval '1 hour'
    from webhook_messages where status = 'failed'`);
  await db.query(sql.unsafe`
    insert into event_idempotency_keys (workspace_id, key, event_id, created_at)
    values ('ws_ret', 'old', 'evt_x', ${at(8)}), ('ws_ret', 'new', 'evt_y', ${at(1)})`);
  await db.query(sql.unsafe`
    insert into invitations (id, workspace_id, email, role, expires_at, accepted_at)
    values ('inv_old', 'ws_ret', 'a@example.com', 'MEMBER', ${at(10)}, null),
           ('inv_used', 'ws_ret', 'b@example.com', 'MEMBER', ${at(-5)}, ${at(9)}),
           ('inv_open', 'ws_ret', 'c@example.com', 'MEMBER', ${at(-5)}, null)`);
  await db.query(sql.unsafe`
    insert into sessions (sid, sess, expire)
    values ('gone', '{}', now() - interval '1 hour'), ('live', '{}', now() + interval '1 hour')`);
  await db.query(sql.unsafe`
    insert into events (workspace_id, id, contact_id, type, occurred_at, received_at)
    values ('ws_ret', ${idAgo('event', 400, 0)}, 'ct_ret', 'old', ${at(400)}, ${at(400)}),
           ('ws_ret', ${idAgo('event', 1, 0)}, 'ct_ret', 'new', ${at(1)}, ${at(1)})`);
  await db.query(sql.unsafe`
    insert into score_changes (workspace_id, id, contact_id, reason, previous_score, score, created_at)
    values ('ws_ret', ${idAgo('scoreChange', 400, 0)}, 'ct_ret', 'rule', 0, 5, ${at(400)})`);
}

describe('retention', () => {
  let database: { name: string; url: string };
  let db: DatabasePool;
  before(async () => {
    database = await scratchDatabase();
    db = await createDatabasePool(database.url, { maxPoolSize: 2 });
    await seed(db);
  });
  after(async () => {
    await db?.end();
    if (database) await dropScratchDatabase(database.name);
  });

  const prune = async (args: string[], env: Record<string, string> = {}) => {
    const run = await runCli(['prune', '--json', ...args], {
      env: { DATABASE_URL: database.url, RETENTION_BATCH_SIZE: '10', ...env },
    });
    expect(run.code, run.stderr).to.equal(0);
    return rowsOf(JSON.parse(run.stdout));
  };
  const count = (table: string) =>
    db.oneFirst(sql.unsafe`select count(*)::int from ${sql.identifier([table])}`) as Promise<number>;

  it('--dry-run counts per table what would go and deletes nothing; unset limits keep everything', async () => {
    const wouldGo = await prune(['--dry-run']);
    expect(wouldGo).to.include({
      webhook_deliveries: 25,
      webhook_messages: 1,
      outgoing_events: 3,
      event_idempotency_keys: 1,
      invitations: 2,
      sessions: 1,
      events: null,
      messages: null,
      score_changes: null,
    });
    expect(wouldGo['pgboss.job']).to.be.a('number');
    expect(await count('webhook_deliveries')).to.equal(27);
  });

  it('prune deletes in batches exactly what the rules say, and the limits the operator sets', async () => {
    const deleted = await prune([]);
    expect(deleted).to.include({
      webhook_deliveries: 25,
      webhook_messages: 1,
      outgoing_events: 3,
      events: null,
    });
    expect(await count('webhook_deliveries')).to.equal(2);
    expect(await db.anyFirst(sql.unsafe`select status from webhook_messages order by status`)).to.deep.equal([
      'failed',
      'pending',
    ]);
    expect(await db.anyFirst(sql.unsafe`select id from webhook_attempts`)).to.deep.equal(['dlv_replayed']);
    expect(await db.anyFirst(sql.unsafe`select key from event_idempotency_keys`)).to.deep.equal(['new']);
    expect(await db.anyFirst(sql.unsafe`select id from invitations`)).to.deep.equal(['inv_open']);
    expect(await db.anyFirst(sql.unsafe`select sid from sessions`)).to.deep.equal(['live']);
    expect(await count('events')).to.equal(2);

    const limited = await prune([], {
      RETENTION_EVENTS_MS: '31536000000',
      RETENTION_SCORE_HISTORY_MS: '31536000000',
    });
    expect(limited).to.include({ events: 1, score_changes: 1, webhook_deliveries: 0 });
    expect(await db.anyFirst(sql.unsafe`select type from events`)).to.deep.equal(['new']);
  });

  it('runs on a pg-boss schedule, and pg-boss deletes finished jobs after RETENTION_JOBS_MS', async () => {
    const serverDb = server().context.db;
    expect(
      await serverDb.maybeOneFirst(
        sql.unsafe`select cron from pgboss.schedule where name = 'retention.prune'`,
      ),
    ).to.equal('*/15 * * * *');
    expect(
      await serverDb.oneFirst(sql.unsafe`
        select array_agg(distinct deletion_seconds) from pgboss.queue where name in ('retention.prune', 'messages.send')`),
    ).to.deep.equal([7 * 24 * 60 * 60]);
  });
});
