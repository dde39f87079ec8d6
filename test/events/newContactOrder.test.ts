// Two batches creating the same new contacts, each listing them in its own order, must not
// deadlock on the email index: each request inserts its new contacts in email order, so the
// second waits for the first at the first email they share instead of holding one the first
// still needs. A deadlock is only noticed after deadlock_timeout (1 s), then slonik runs the
// transaction again: both batches still answer 201, so the test reads PostgreSQL's own count.
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { server } from '../support/server.ts';
import { workspace } from './support.ts';

const CONTACTS = 400;
const ROUNDS = 3;

async function deadlocks(): Promise<number> {
  return server().context.db.transaction(async (tx) => {
    await tx.query(sql.unsafe`select pg_stat_clear_snapshot()`);
    return Number(
      await tx.oneFirst(sql.unsafe`
        select deadlocks from pg_stat_database where datname = current_database()`),
    );
  });
}

/** Until the backends have reported their counts (an idle backend reports within a second). */
async function settledDeadlocks(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  return deadlocks();
}

describe('events: batches creating the same contacts', function () {
  this.timeout(60_000);

  it('create them in one order whatever the order of their items, without deadlocks', async () => {
    const { admin, base, workspaceId } = await workspace({ listening: false });
    const before = await settledDeadlocks();
    for (let round = 0; round < ROUNDS; round++) {
      const emails = Array.from({ length: CONTACTS }, (_, i) => `r${round}.c${i}@example.com`);
      const items = (list: string[]) => list.map((email) => ({ type: 'signup', email }));
      const [forward, backward] = await Promise.all([
        admin.post(`${base}/events/batch`, { events: items(emails) }),
        admin.post(`${base}/events/batch`, { events: items([...emails].reverse()) }),
      ]);
      expect(forward.status, forward.text).to.equal(201);
      expect(backward.status, backward.text).to.equal(201);
      expect(forward.body.data[0].contact.id).to.equal(backward.body.data[CONTACTS - 1].contact.id);
    }
    const created = await server().context.db.oneFirst(sql.unsafe`
      select count(*)::int from contacts where workspace_id = ${workspaceId}`);
    expect(created).to.equal(CONTACTS * ROUNDS);
    expect(await settledDeadlocks()).to.equal(before);
  });
});
