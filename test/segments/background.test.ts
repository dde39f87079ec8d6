// Work outside the request: a new or edited segment computed page by page by the
// `segments.compute` job, and segments with time windows refreshed by `segments.refresh` and the CLI.
import { expect } from 'chai';
import { z } from 'zod';
import { sql, type Tx } from '../../src/db/pool.ts';
import { refreshBudget, refreshSegments } from '../../src/segments/jobs.ts';
import { lockSegment, lockSegmentForRefresh } from '../../src/segments/queries.ts';
import { createContact, track, whileHeld, workspace } from '../events/support.ts';
import { runCli } from '../support/cli.ts';
import { server } from '../support/server.ts';
import { ageEvents, ageRefreshes, createSegment, memberIds, outgoingEvents, whenReady } from './helpers.ts';

const cli = (args: string[]) => runCli(args);

type Workspace = Awaited<ReturnType<typeof workspace>>;

/**
 * Tracks `event` while another transaction has run `hold` and stays open (then rolls back):
 * 'stored' when ingest answered within 3 seconds, 'still waiting' when it queued behind the lock.
 */
function trackWhileHeld(ctx: Workspace, event: Record<string, unknown>, hold: (tx: Tx) => Promise<void>) {
  return whileHeld(hold, () => {
    const tracked = track(ctx.admin, ctx.base, event);
    const waited = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3_000));
    return Promise.race([tracked.then(() => 'stored'), waited]);
  });
}

describe('segments: background computation and refresh', function () {
  this.timeout(60_000);

  it('answers at once with status computing, then fills memberships page by page until ready', async () => {
    const ctx = await workspace();
    // Bulk set-up the API has no reason to offer: contacts over several pages of the compute job.
    const contacts = 2 * server().context.config.SEGMENT_COMPUTE_PAGE_SIZE + 500;
    await server().context.db.query(sql.typeAlias('void')`
      insert into contacts (workspace_id, id, email, attributes)
      select ${ctx.workspaceId}, 'ct_bulk_' || lpad(n::text, 6, '0'), 'bulk' || n || '@example.com',
        jsonb_build_object('n', n)
      from generate_series(1, ${contacts}) as n
    `);
    const created = await ctx.admin.post(`${ctx.base}/segments`, {
      name: 'Low',
      rules: { attribute: 'n', op: 'lte', value: 1500 },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.include({ status: 'computing', count: 0, computedAt: null });
    const ready = await whenReady(ctx.admin, ctx.base, created.body.id);
    expect(ready.count).to.equal(1500);
    expect(ready.computedAt).to.be.a('string');
    expect(await outgoingEvents(ctx.workspaceId, 'segment.entered')).to.have.length(1500);

    // New rules are computed the same way: computing, then the exits and entries of the change.
    const changed = await ctx.admin.patch(`${ctx.base}/segments/${created.body.id}`, {
      rules: { attribute: 'n', op: 'gt', value: contacts - 10 },
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.status).to.equal('computing');
    const recomputed = await whenReady(ctx.admin, ctx.base, created.body.id);
    expect(recomputed.count).to.equal(10);
    expect(await outgoingEvents(ctx.workspaceId, 'segment.exited')).to.have.length(1500);
    const expected = Array.from({ length: 10 }, (_, n) => `ct_bulk_${String(contacts - n).padStart(6, '0')}`);
    expect(await memberIds(ctx.admin, ctx.base, created.body.id)).to.deep.equal(expected.sort());
  });

  it('refreshes time-window segments as events age out, and the CLI prints the changes', async () => {
    const ctx = await workspace();
    const ada = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    const bob = (await createContact(ctx.admin, ctx.base, { email: 'bob@example.com' })).id;
    await track(ctx.admin, ctx.base, { type: 'visit', contactId: ada });
    await track(ctx.admin, ctx.base, { type: 'visit', contactId: bob });
    const recent = await createSegment(ctx.admin, ctx.base, { event: 'visit', within: 'PT1H' });
    const lapsed = await createSegment(ctx.admin, ctx.base, {
      all: [{ event: 'visit' }, { not: { event: 'visit', within: 'PT1H' } }],
    });
    await createSegment(ctx.admin, ctx.base, { event: 'visit' }, 'no window');
    expect(await memberIds(ctx.admin, ctx.base, recent.id)).to.deep.equal([ada, bob].sort());

    // Two hours pass: ada's visit is now that old, and so is the segments' last refresh.
    await ageEvents(ada, 'visit', '2 hours');
    await ageRefreshes(ctx.workspaceId, '2 hours');
    const results = await refreshSegments(
      server().context,
      ctx.workspaceId,
      refreshBudget(server().context.config),
    );
    expect(results).to.deep.equal([
      { workspaceId: ctx.workspaceId, segmentId: recent.id, entered: [], exited: [ada] },
      { workspaceId: ctx.workspaceId, segmentId: lapsed.id, entered: [ada], exited: [] },
    ]);
    expect(await memberIds(ctx.admin, ctx.base, recent.id)).to.deep.equal([bob]);
    expect(await outgoingEvents(ctx.workspaceId, 'segment.exited')).to.deep.equal([
      { segmentId: recent.id, contactId: ada },
    ]);

    await ageEvents(bob, 'visit', '2 hours');
    await ageRefreshes(ctx.workspaceId, '2 hours');
    const run = await cli(['segments', 'refresh', '--workspace', ctx.workspaceId, '--json']);
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout).segments).to.deep.equal([
      { workspaceId: ctx.workspaceId, segmentId: recent.id, entered: [], exited: [bob] },
      { workspaceId: ctx.workspaceId, segmentId: lapsed.id, entered: [bob], exited: [] },
    ]);
    const text = await cli(['segments', 'refresh', '--workspace', ctx.workspaceId]);
    expect(text.stdout).to.match(new RegExp(`${recent.id}\\s+0\\s+0`));
  });

  it('a refresh re-evaluates only contacts whose events crossed a window edge; without a last refresh, all', async () => {
    const ctx = await workspace();
    const ada = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    const bob = (await createContact(ctx.admin, ctx.base, { email: 'bob@example.com' })).id;
    await track(ctx.admin, ctx.base, { type: 'visit', contactId: ada });
    const recent = await createSegment(ctx.admin, ctx.base, { event: 'visit', within: 'PT1H' });
    expect(await memberIds(ctx.admin, ctx.base, recent.id)).to.deep.equal([ada]);
    // A membership no rule gives, planted where no event crossed an edge: a refresh that looked
    // at every contact would remove it; one that looks at crossings leaves it alone.
    const db = server().context.db;
    await db.query(sql.typeAlias('void')`
      insert into segment_memberships (workspace_id, segment_id, contact_id) values (${ctx.workspaceId}, ${recent.id}, ${bob})
    `);
    await ageEvents(ada, 'visit', '2 hours');
    await ageRefreshes(ctx.workspaceId, '2 hours');
    const budget = refreshBudget(server().context.config);
    expect(await refreshSegments(server().context, ctx.workspaceId, budget)).to.deep.equal([
      { workspaceId: ctx.workspaceId, segmentId: recent.id, entered: [], exited: [ada] },
    ]);
    // No date of a last refresh (a segment saved before refreshes kept one): a whole pass.
    await db.query(
      sql.typeAlias('void')`update segments set refreshed_through = null where id = ${recent.id}`,
    );
    expect(await refreshSegments(server().context, ctx.workspaceId, budget)).to.deep.equal([
      { workspaceId: ctx.workspaceId, segmentId: recent.id, entered: [], exited: [bob] },
    ]);
    const [row] = await db.any(sql.type(z.object({ through: z.boolean() }))`
      select refreshed_through > now() - interval '1 minute' as through from segments where id = ${recent.id}
    `);
    expect(row.through).to.equal(true);
  });

  it('more crossings than the budget are refreshed earliest first over several runs, with no whole pass', async () => {
    const ctx = await workspace();
    const ids: string[] = [];
    for (const name of ['ada', 'bob', 'cy', 'dee']) {
      const id = (await createContact(ctx.admin, ctx.base, { email: `${name}@example.com` })).id;
      await track(ctx.admin, ctx.base, { type: 'visit', contactId: id });
      ids.push(id);
    }
    const idle = (await createContact(ctx.admin, ctx.base, { email: 'idle@example.com' })).id;
    const recent = await createSegment(ctx.admin, ctx.base, { event: 'visit', within: 'PT1H' });
    const db = server().context.db;
    // Planted where no event crossed an edge: only a whole pass would remove it.
    await db.query(sql.typeAlias('void')`
      insert into segment_memberships (workspace_id, segment_id, contact_id) values (${ctx.workspaceId}, ${recent.id}, ${idle})
    `);
    // Each visit left the window at its own time over the last few hours: ada's first, dee's last.
    for (const [index, id] of ids.entries()) await ageEvents(id, 'visit', `${5 - index} hours`);
    await ageRefreshes(ctx.workspaceId, '6 hours');
    const budget = { ...refreshBudget(server().context.config), rows: 2 };
    const exits = async () =>
      (await refreshSegments(server().context, ctx.workspaceId, budget)).map((run) => run.exited);
    expect(await exits()).to.deep.equal([ids.slice(0, 2)]);
    expect(await exits()).to.deep.equal([ids.slice(2)]);
    expect(await exits()).to.deep.equal([[]]);
    expect(await memberIds(ctx.admin, ctx.base, recent.id)).to.deep.equal([idle]);
    const [row] = await db.any(sql.type(z.object({ cursor: z.unknown(), through: z.boolean() }))`
      select refresh_cursor as cursor, refreshed_through > now() - interval '1 minute' as through
      from segments where id = ${recent.id}
    `);
    expect(row).to.deep.equal({ cursor: null, through: true });
  });

  it('ingest does not wait for a refresh page that is adding the contact to a segment', async () => {
    const ctx = await workspace();
    const ada = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    const recent = await createSegment(ctx.admin, ctx.base, { event: 'visit', within: 'PT1H' });
    // A refresh page's transaction: its membership insert holds a key-share lock on the contact.
    const answer = await trackWhileHeld(ctx, { type: 'login', contactId: ada }, async (tx) => {
      await tx.query(sql.typeAlias('void')`
        insert into segment_memberships (workspace_id, segment_id, contact_id) values (${ctx.workspaceId}, ${recent.id}, ${ada})
      `);
    });
    expect(answer).to.equal('stored');
  });

  it('ingest adding a contact to a segment does not wait for a refresh page holding that segment', async () => {
    const ctx = await workspace();
    const ada = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    const recent = await createSegment(ctx.admin, ctx.base, { event: 'visit', within: 'PT1H' });
    // The membership's insert checks its segment by a key-share lock, which the refresh must not block.
    const answer = await trackWhileHeld(ctx, { type: 'visit', contactId: ada }, async (tx) => {
      expect(await lockSegmentForRefresh(tx, ctx.workspaceId, recent.id)).to.not.equal(null);
    });
    expect(answer).to.equal('stored');
    expect(await memberIds(ctx.admin, ctx.base, recent.id)).to.deep.equal([ada]);
  });

  it('ingest adding a contact to a segment does not wait for a compute page holding that segment', async () => {
    const ctx = await workspace();
    const ada = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    const visitors = await createSegment(ctx.admin, ctx.base, { event: 'visit' });
    const answer = await trackWhileHeld(ctx, { type: 'visit', contactId: ada }, async (tx) => {
      expect(await lockSegment(tx, ctx.workspaceId, visitors.id, 'no key update')).to.not.equal(null);
    });
    expect(answer).to.equal('stored');
  });

  it('the CLI says it refreshes only ready segments with time windows, in its answer and its help', async () => {
    const ctx = await workspace();
    await createSegment(ctx.admin, ctx.base, { event: 'visit' }); // no `within`: nothing to refresh
    const run = await cli(['segments', 'refresh', '--workspace', ctx.workspaceId]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.equal(
      'no ready segments with time windows (`within`) to refresh: other segments are kept current ' +
        'at ingest, and a segment still computing is evaluated by its compute job\n',
    );
    const help = await cli(['segments', 'refresh', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).to.contain('Other segments need no refresh');
  });

  it('the CLI refuses an unknown workspace', async () => {
    const run = await cli(['segments', 'refresh', '--workspace', 'ws_nope']);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain('No workspace ws_nope');
  });
});
