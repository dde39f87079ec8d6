// Counter tables keep a row per key and database backend (src/db/counters.ts). The worker's
// `counters.fold` folds the rows of backends that are gone into backend 0: a key's rows stop
// growing with the installation's age, and what readers sum (a segment's count, a campaign's
// report) is the same before and after. Rows of a backend still connected stay where they are.
import { expect } from 'chai';
import pg from 'pg';
import { z } from 'zod';
import { foldAllCounters } from '../../src/app/counters.ts';
import { sql } from '../../src/db/pool.ts';
import { createCampaign } from '../campaigns/support.ts';
import { workspace } from '../events/support.ts';
import { whenReady } from '../segments/helpers.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';

type Ctx = Awaited<ReturnType<typeof workspace>>;

/** A connection of its own: a backend that the test closes (a pool replacing a connection). */
async function connection() {
  const client = new pg.Client({ connectionString: server().databaseUrl });
  await client.connect();
  const pid: number = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
  return { client, pid };
}

/** Contacts, their membership of the segment and the campaign's sent messages, by one backend. */
async function writeCounted(client: pg.Client, ctx: Ctx, segmentId: string, campaignId: string, tag: string) {
  await client.query(
    `insert into contacts (workspace_id, id) select $1, $2 || n from generate_series(1, 5) n`,
    [ctx.workspaceId, `ct_${tag}_`],
  );
  await client.query(
    `insert into segment_memberships (workspace_id, segment_id, contact_id)
     select $1, $2, $3 || n from generate_series(1, 5) n`,
    [ctx.workspaceId, segmentId, `ct_${tag}_`],
  );
  await client.query(
    `insert into messages (workspace_id, id, contact_id, channel, campaign_id, status, sent_at, template)
     select $1, $2 || n, $3 || n, 'email', $4, 'sent', now(), '{}' from generate_series(1, 5) n`,
    [ctx.workspaceId, `msg_${tag}_`, `ct_${tag}_`, campaignId],
  );
  // A scanner's click on a link of each: counted at once, per link and hour too.
  await client.query(
    `insert into message_hits (workspace_id, message_id, kind, method, human, reasons, url)
     select $1, $2 || n, 'click', 'GET', false, '{scanner}', 'https://example.com/offer' from generate_series(1, 5) n`,
    [ctx.workspaceId, `msg_${tag}_`],
  );
}

const Backends = z.object({ backend: z.number() });

/** The backends with rows for this workspace's keys in each counter table read here. */
async function backendsOf(workspaceId: string) {
  const of = async (table: string) =>
    (
      await server().context.db.any(sql.type(Backends)`
        select distinct backend from ${sql.identifier([table])} where workspace_id = ${workspaceId} order by backend`)
    ).map((row) => row.backend);
  return {
    members: await of('segment_member_counts'),
    steps: await of('campaign_step_counts'),
    days: await of('campaign_daily_counts'),
    hours: await of('campaign_hourly_counts'),
    workspaceHours: await of('workspace_hourly_counts'),
    links: await of('link_hourly_counts'),
  };
}

async function figures(ctx: Ctx, segmentId: string, campaignId: string) {
  const segment = await ctx.admin.get(`${ctx.base}/segments/${segmentId}`);
  const report = await ctx.admin.get(`${ctx.base}/campaigns/${campaignId}/report`);
  const series = await ctx.admin.get(`${ctx.base}/campaigns/${campaignId}/report/series`);
  const workspaceSeries = await ctx.admin.get(`${ctx.base}/report`);
  for (const response of [segment, report, series, workspaceSeries])
    expect(response.status, response.text).to.equal(200);
  return {
    members: segment.body.count,
    report: report.body,
    series: series.body,
    workspaceSeries: workspaceSeries.body,
  };
}

describe('counter tables folded by the worker', () => {
  it('folds the rows of backends that are gone into backend 0, and the figures stay the same', async () => {
    const ctx = await workspace({ listening: false });
    const segment = await ctx.admin.post(`${ctx.base}/segments`, {
      name: 'Anyone',
      rules: { attribute: 'plan', op: 'eq', value: 'never-set' },
    });
    expect(segment.status, segment.text).to.equal(201);
    // Computed (over no contacts) before the memberships below are written, so it removes none.
    await whenReady(ctx.admin, ctx.base, segment.body.id);
    const campaign = await createCampaign(ctx.admin, ctx.base);

    const gone = await connection();
    await writeCounted(gone.client, ctx, segment.body.id, campaign.id, 'a');
    await gone.client.end();
    const live = await connection();
    try {
      await writeCounted(live.client, ctx, segment.body.id, campaign.id, 'b');
      const before = await figures(ctx, segment.body.id, campaign.id);
      expect(before.members).to.equal(10);
      expect(before.report.messages.sent).to.equal(10);
      expect(before.series.totals.sent).to.equal(10);
      expect(before.series.links).to.deep.equal([
        { url: 'https://example.com/offer', humanClicks: 0, machineClicks: 10 },
      ]);
      const rowsBefore = await backendsOf(ctx.workspaceId);
      for (const backends of Object.values(rowsBefore))
        expect(backends).to.include.members([gone.pid, live.pid]);
      // The closed connection's backend leaves a moment after the client hangs up.
      await eventually(
        async () =>
          (await server().context.db.oneFirst(
            sql.type(
              z.object({ n: z.number() }),
            )`select count(*)::int as n from pg_stat_activity where pid = ${gone.pid}`,
          )) === 0,
      );

      const folded = await foldAllCounters(server().context);
      expect(folded).to.include.keys(
        'segment_member_counts',
        'campaign_step_counts',
        'campaign_daily_counts',
      );
      const rowsAfter = await backendsOf(ctx.workspaceId);
      for (const backends of Object.values(rowsAfter)) {
        expect(backends).to.include.members([0, live.pid]);
        expect(backends).not.to.include(gone.pid);
      }
      expect(await figures(ctx, segment.body.id, campaign.id)).to.deep.equal(before);

      // Folding again finds nothing of this workspace's to move, and adds nothing twice.
      await foldAllCounters(server().context);
      expect(await backendsOf(ctx.workspaceId)).to.deep.equal(rowsAfter);
      expect(await figures(ctx, segment.body.id, campaign.id)).to.deep.equal(before);
    } finally {
      await live.client.end();
    }
  });

  it("deletes a campaign's counters with it, and a workspace's with its campaigns", async () => {
    const ctx = await workspace({ listening: false });
    const segment = await ctx.admin.post(`${ctx.base}/segments`, {
      name: 'Anyone',
      rules: { attribute: 'plan', op: 'eq', value: 'never-set' },
    });
    await whenReady(ctx.admin, ctx.base, segment.body.id);
    const [kept, deleted] = [
      await createCampaign(ctx.admin, ctx.base),
      await createCampaign(ctx.admin, ctx.base),
    ];
    const own = await connection();
    await writeCounted(own.client, ctx, segment.body.id, kept.id, 'k');
    await writeCounted(own.client, ctx, segment.body.id, deleted.id, 'd');
    await own.client.end();
    const rowsOf = (campaignId: string) =>
      server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
        select (select count(*) from campaign_step_counts where campaign_id = ${campaignId})
          + (select count(*) from campaign_daily_counts where campaign_id = ${campaignId})
          + (select count(*) from campaign_hourly_counts where campaign_id = ${campaignId})::int as n`);
    expect(await rowsOf(deleted.id)).to.be.greaterThan(0);
    await server().context.db.query(sql.unsafe`delete from messages where campaign_id = ${deleted.id}`);
    const removed = await ctx.admin.delete(`${ctx.base}/campaigns/${deleted.id}`);
    expect(removed.status, removed.text).to.equal(204);
    expect(await rowsOf(deleted.id)).to.equal(0);
    expect(await rowsOf(kept.id)).to.be.greaterThan(0);
    await server().context.db.query(sql.unsafe`delete from workspaces where id = ${ctx.workspaceId}`);
    expect(await rowsOf(kept.id)).to.equal(0);
  });

  it('is scheduled in the worker', async () => {
    const cron = await server().context.db.maybeOneFirst(
      sql.type(z.object({ cron: z.string() }))`select cron from pgboss.schedule where name = 'counters.fold'`,
    );
    expect(cron).to.equal('*/10 * * * *');
  });
});
