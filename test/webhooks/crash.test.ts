// Crash safety: a worker process SIGKILLed in the middle of a batch loses nothing. It runs on a
// database of its own (created on the test server), so the test server's in-process dispatcher
// cannot compete for the messages: only the spawned workers deliver them.
import { expect } from 'chai';
import { z } from 'zod';
import { config } from '../../src/config.ts';
import { sql } from '../../src/db/pool.ts';
import { emitMany } from '../../src/outbox/emit.ts';
import { createEndpoint } from '../../src/webhooks/service.ts';
import { eventually } from '../support/factories.ts';
import { exited, scratchWorkerSuite, startWorker } from '../support/spawnedWorker.ts';
import { type Receiver, startReceiver } from './support.ts';

const MESSAGES = 200;
const WORKER_ENV = {
  ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_CONCURRENCY: '10',
  WEBHOOK_LEASE_MS: '1500', // a killed worker's attempts fall due again after 1.5 s
  WEBHOOK_RETRY_SCHEDULE: '0,1,2',
};

const counted = z.object({ n: z.number() });

describe('webhook delivery survives a killed worker', function () {
  this.timeout(60_000);
  let receiver: Receiver;
  const scratch = scratchWorkerSuite();

  before(async () => {
    // Slow answers keep a batch in flight long enough to kill the worker in the middle of it.
    receiver = await startReceiver(() => ({ delayMs: 150 }));
  });

  after(() => receiver.close());

  it('delivers every message at least once after a SIGKILL mid-batch and a restart', async () => {
    const { db, url, workers } = scratch;
    await db.query(sql.unsafe`insert into workspaces (id, name) values ('ws_crash', 'Crash test')`);
    await createEndpoint(db, config(), 'ws_crash', {
      url: receiver.url,
      direction: 'OUTBOUND',
      active: true,
      signed: true,
    });
    await db.transaction((tx) =>
      emitMany(
        tx,
        Array.from({ length: MESSAGES }, (_, n) => ({
          workspaceId: 'ws_crash',
          type: 'contact.created' as const,
          data: { contactId: `ct_${n}` },
        })),
      ),
    );

    workers.push(startWorker(url, WORKER_ENV));
    await eventually(async () => receiver.requests.length >= 30, 20_000);
    workers[0].kill('SIGKILL');
    await exited(workers[0]);

    const ids = (request: { headers: Record<string, unknown> }) => String(request.headers['webhook-id']);
    const receivedBeforeCrash = new Set(receiver.requests.map(ids)).size;
    const leased = await db.oneFirst(
      sql.type(counted)`select count(*)::int as n from webhook_attempts where claims > 0`,
    );
    expect(receivedBeforeCrash, 'the worker died before finishing').to.be.below(MESSAGES);
    expect(leased, 'it held leased attempts when it died').to.be.above(0);

    workers.push(startWorker(url, WORKER_ENV));
    // Fan-out is paced by what a worker can send, so some events may not have messages yet.
    const messageIds = await eventually(async () => {
      const ids = await db.anyFirst(sql.type(z.object({ id: z.string() }))`select id from webhook_messages`);
      return ids.length === MESSAGES ? ids : null;
    }, 30_000);
    await eventually(async () => {
      const received = new Set(receiver.requests.map(ids));
      return messageIds.every((id) => received.has(id));
    }, 30_000);
    const settled = await eventually(async () => {
      const pending = await db.oneFirst(sql.type(counted)`
        select count(*)::int as n from webhook_messages where status <> 'succeeded'`);
      return pending === 0 ? true : null;
    }, 10_000);
    expect(settled).to.equal(true);
    expect(await db.oneFirst(sql.type(counted)`select count(*)::int as n from webhook_attempts`)).to.equal(0);
  });
});
