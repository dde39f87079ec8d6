// The channels' send-rate limiter: reservations from two connection pools at once (two worker
// processes' worth) take distinct slots exactly 1 / rate apart; a workspace without a rate, or
// another workspace, is not held by it; a default rate applies until the workspace sets its own.
import { expect } from 'chai';
import type { DatabasePool } from 'slonik';
import { reserveSendSlot, setChannelRates } from '../../src/channels/index.ts';
import { createDatabasePool } from '../../src/db/pool.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';

describe('channels: the shared send-rate limiter', () => {
  const pools: DatabasePool[] = [];
  before(async () => {
    for (const _ of [1, 2]) pools.push(await createDatabasePool(server().databaseUrl, { maxPoolSize: 5 }));
  });
  after(() => Promise.all(pools.map((pool) => pool.end())));

  it('gives concurrent reservations from two pools distinct slots, 1 / rate apart', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    const { workspaceId: other } = await workspaceWithAdmin();
    await setChannelRates(server().context.db, workspaceId, { email: 20 });
    const started = Date.now();
    const slots = await Promise.all(
      Array.from({ length: 40 }, (_, n) => reserveSendSlot(pools[n % 2], { workspaceId, channel: 'email' })),
    );
    const times = slots.map((slot) => slot!.at.getTime()).sort((a, b) => a - b);
    for (let n = 1; n < times.length; n++) expect(times[n] - times[n - 1]).to.be.within(49, 51);
    expect(times[0]).to.be.within(started - 1_000, Date.now() + 1_000);
    const last = slots.find((slot) => slot!.at.getTime() === times.at(-1))!;
    expect(last.waitMs).to.be.within(1_000, 2_000);

    // No rate: no slot. Another workspace: its own, free slot now.
    expect(await reserveSendSlot(pools[0], { workspaceId, channel: 'push' })).to.equal(null);
    expect(await reserveSendSlot(pools[0], { workspaceId: other, channel: 'email' })).to.equal(null);
    const defaulted = await reserveSendSlot(pools[1], {
      workspaceId: other,
      channel: 'email',
      defaultRate: 2,
    });
    expect(defaulted!.waitMs).to.be.at.most(0);
    const next = await reserveSendSlot(pools[0], { workspaceId: other, channel: 'email', defaultRate: 2 });
    expect(next!.at.getTime() - defaulted!.at.getTime()).to.be.within(499, 501);
    // The workspace's own rate wins over the default.
    await setChannelRates(server().context.db, other, { email: 1000 });
    const own = await reserveSendSlot(pools[0], { workspaceId: other, channel: 'email', defaultRate: 2 });
    expect(own!.at.getTime() - next!.at.getTime()).to.be.within(499, 501);
    const after = await reserveSendSlot(pools[0], { workspaceId: other, channel: 'email', defaultRate: 2 });
    expect(after!.at.getTime() - own!.at.getTime()).to.be.within(0, 2);
  });
});
