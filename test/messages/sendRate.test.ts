// A channel's rate holds across worker processes: two spawned workers deliver one workspace's
// queued messages no faster than its ratePerSecond, every message sent once, while another
// workspace's messages go out at once beside them. A database of its own, so only those two
// workers do the work.
import { expect } from 'chai';
import { z } from 'zod';
import { setChannelRates } from '../../src/channels/index.ts';
import { sql } from '../../src/db/pool.ts';
import { createBoss } from '../../src/jobs/boss.ts';
import { createMessage, enqueueDelivery, SEND_QUEUE } from '../../src/messages/index.ts';
import { sendMessageJob } from '../../src/messages/jobs.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { scratchWorkerSuite, startWorker } from '../support/spawnedWorker.ts';
import { suiteSink } from './support.ts';

// Slow enough that the jitter of a send (a new pooled SMTP connection in each worker, a loaded
// machine) stays well under the 500 ms between two slots.
const RATE = 2;
const THROTTLED = 8;
const FREE = 4;
const WARM_UP = 20;

const Sent = z.object({ workspace_id: z.string(), sent_ms: z.number() });

describe('messages: a channel rate across two worker processes', function () {
  this.timeout(60_000);
  const sink = suiteSink();
  const scratch = scratchWorkerSuite();

  async function seed(workspaceId: string, contacts: number) {
    const { db } = scratch;
    await db.query(sql.unsafe`insert into workspaces (id, name) values (${workspaceId}, ${workspaceId})`);
    const settings = { host: '127.0.0.1', port: sink.port, secure: false, username: null };
    await db.query(sql.unsafe`
      insert into channel_configs (workspace_id, channel, settings)
      values (${workspaceId}, 'email', ${sql.jsonb({ ...settings, fromEmail: 'news@rate.test', fromName: null, replyTo: null, dkim: null })})`);
    await db.query(sql.unsafe`
      insert into contacts (workspace_id, id, email)
      select ${workspaceId}, ${workspaceId} || '_ct' || n, ${workspaceId} || '.' || n || '@rate.test'
      from generate_series(1, ${contacts}) n`);
  }

  it(`sends no more than ${RATE} a second of the limited workspace, and the other one's at once`, async () => {
    const { db, url, workers } = scratch;
    await seed('ws_limited', THROTTLED);
    await seed('ws_free', WARM_UP + FREE);
    await setChannelRates(db, 'ws_limited', { email: RATE });
    const env = { ALLOW_PRIVATE_TARGETS: 'true', DATA_DIR: server().dataDir };
    workers.push(startWorker(url, env), startWorker(url, env));

    const boss = createBoss(url, 'cli');
    await boss.start();
    await boss.createQueue(SEND_QUEUE, sendMessageJob.queue);
    const enqueue = (batches: [string, number, number][]) =>
      db.transaction(async (tx) => {
        for (const [workspaceId, from, to] of batches) {
          for (let n = from; n <= to; n++) {
            const message = await createMessage(tx, {
              workspaceId,
              contactId: `${workspaceId}_ct${n}`,
              channel: 'email',
              template: { subject: 'Hi', html: '<p>Hi</p>' },
            });
            await enqueueDelivery({ boss }, tx, message.id);
          }
        }
      });
    const sentCount = () =>
      db.oneFirst(sql.type(z.object({ n: z.number() }))`
        select count(*)::int as n from messages where status = 'sent'`);
    // Warm both workers first: a process's first send (modules, templates, SMTP pool) is slow, and
    // would bunch the sends after it in what is measured.
    await enqueue([['ws_free', 1, WARM_UP]]);
    await eventually(async () => (await sentCount()) === WARM_UP, 30_000);
    // Every limited send's slot is reserved after this (by the database's clock, on this machine).
    const beforeLimited = Date.now();
    await enqueue([
      ['ws_limited', 1, THROTTLED],
      ['ws_free', WARM_UP + 1, WARM_UP + FREE],
    ]);
    await boss.stop({ graceful: false, close: true });

    await eventually(async () => (await sentCount()) === WARM_UP + THROTTLED + FREE, 40_000);
    const rows = await db.any(sql.type(Sent)`
      select workspace_id, extract(epoch from sent_at)::float8 * 1000 as sent_ms
      from messages where status = 'sent' order by sent_at offset ${WARM_UP}`);
    const limited = rows.filter((row) => row.workspace_id === 'ws_limited').map((row) => row.sent_ms);
    const free = rows.filter((row) => row.workspace_id === 'ws_free').map((row) => row.sent_ms);
    expect([limited.length, free.length]).to.deep.equal([THROTTLED, FREE]);
    expect((await sink.received()).length).to.equal(WARM_UP + THROTTLED + FREE); // once each

    // The limiter promises that no send starts before its slot, and the slots are 1 / rate apart
    // from the first one, reserved after beforeLimited: the k-th send ends no earlier than k / rate
    // seconds after it. A send may end later than that (its own work, a busy worker, and a
    // workspace's first send in a process opens its SMTP pool), which can bring it close to the
    // next one, so the gaps between the sends themselves are not what is promised.
    for (const [k, sentMs] of limited.entries())
      expect(sentMs, `limited send ${k} not before its slot`).to.be.at.least(
        beforeLimited + (k * 1_000) / RATE,
      );
    const steady = limited.slice(1);
    const span = steady.at(-1)! - steady[0];
    expect(span, 'and not much longer').to.be.below(((steady.length - 1) / RATE) * 1_000 + 3_000);
    expect(free.at(-1)!, 'the free workspace was not held behind the limited one').to.be.below(
      limited.at(-1)! - 1_000,
    );
  });
});
