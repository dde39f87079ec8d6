// A worker SIGKILLed in the middle of a broadcast loses nothing and doubles nothing: after a
// restart every member is enrolled once, every enrollment has made exactly one message and
// finished, and campaign.completed is emitted once. It runs on a database of its own, so only the
// spawned workers do the work.
import { expect } from 'chai';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { BROADCAST_QUEUE, broadcastJob, startBroadcast } from '../../src/campaigns/broadcast.ts';
import { sql } from '../../src/db/pool.ts';
import { createBoss } from '../../src/jobs/boss.ts';
import { eventually } from '../support/factories.ts';
import { exited, scratchWorkerSuite, startWorker } from '../support/spawnedWorker.ts';

const MEMBERS = 200;
const WORKER_ENV = {
  CAMPAIGN_BROADCAST_PAGE_SIZE: '20',
  // The jobs the killed worker held are retried 2 s after they started, noticed within a second.
  CAMPAIGN_STEP_EXPIRE_MS: '2000',
  JOB_SUPERVISE_MS: '1000',
};

const counted = z.object({ n: z.number() });

async function seed(db: DatabasePool) {
  await db.query(sql.unsafe`insert into workspaces (id, name) values ('ws_crash', 'Crash test')`);
  // Someone listens to campaign.completed, so the outbox records it.
  await db.query(sql.unsafe`
    insert into webhook_endpoints (workspace_id, id, name, direction, url, events)
    values ('ws_crash', 'wh_crash', 'Listener', 'OUTBOUND', 'http://127.0.0.1:9/', '{campaign.completed}')`);
  await db.query(sql.unsafe`
    insert into contacts (workspace_id, id, email)
    select 'ws_crash', 'ct_' || lpad(n::text, 5, '0'), 'c' || n || '@crash.test' from generate_series(1, ${MEMBERS}) n`);
  await db.query(sql.unsafe`
    insert into segments (workspace_id, id, name, rules) values ('ws_crash', 'seg_crash', 'all', '{"attribute": "x", "op": "exists"}')`);
  await db.query(sql.unsafe`
    insert into segment_memberships (workspace_id, segment_id, contact_id)
    select 'ws_crash', 'seg_crash', id from contacts where workspace_id = 'ws_crash'`);
  await db.query(sql.unsafe`
    insert into campaigns (workspace_id, id, name, trigger, steps, status, activated_at)
    values ('ws_crash', 'cmp_crash', 'Crash', '{"type": "broadcast", "segmentId": "seg_crash"}',
      '[{"type": "send", "channel": "email", "subject": "Hi", "body": "<p>Hi</p>"}]', 'active', now())`);
}

describe('a broadcast survives a killed worker', function () {
  this.timeout(90_000);
  const scratch = scratchWorkerSuite();

  it('enrolls every member once and makes one message each after a SIGKILL mid-broadcast', async () => {
    const { db, url, workers } = scratch;
    await seed(db);
    workers.push(startWorker(url, WORKER_ENV));
    const boss = createBoss(url, 'cli');
    await boss.start();
    await boss.createQueue(BROADCAST_QUEUE, { ...broadcastJob.queue, expireInSeconds: 2 });
    await db.transaction((tx) => startBroadcast({ boss }, tx, { workspaceId: 'ws_crash', id: 'cmp_crash' }));
    await boss.stop({ graceful: false, close: true });

    const enrolled = () => db.oneFirst(sql.type(counted)`select count(*)::int as n from enrollments`);
    await eventually(async () => (await enrolled()) >= 40, 30_000);
    workers[0].kill('SIGKILL');
    await exited(workers[0]);
    expect(await enrolled(), 'the worker died before the end of the broadcast').to.be.below(MEMBERS);

    workers.push(startWorker(url, WORKER_ENV));
    await eventually(
      async () =>
        db.oneFirst(sql.type(z.object({ done: z.boolean() }))`
          select completed_at is not null as done from campaigns where id = 'cmp_crash'`),
      60_000,
    );
    const totals = await db.one(sql.type(
      z.object({
        enrollments: z.number(),
        contacts: z.number(),
        unfinished: z.number(),
        messages: z.number(),
        steps: z.number(),
      }),
    )`
      select (select count(*)::int from enrollments) as enrollments,
        (select count(distinct contact_id)::int from enrollments) as contacts,
        (select count(*)::int from enrollments where status <> 'completed') as unfinished,
        (select count(*)::int from messages) as messages,
        (select count(distinct (enrollment_id, step_key))::int from messages) as steps`);
    expect(totals).to.deep.equal({
      enrollments: MEMBERS,
      contacts: MEMBERS,
      unfinished: 0,
      messages: MEMBERS,
      steps: MEMBERS,
    });
    const completed = await db.anyFirst(sql.unsafe`
      select data from outgoing_events where type = 'campaign.completed'`);
    expect(completed).to.deep.equal([{ campaignId: 'cmp_crash', name: 'Crash', totalEnrolled: MEMBERS }]);
  });
});
