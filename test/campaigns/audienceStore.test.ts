// A broadcast's audience too large to count at each request (src/campaigns/audienceStore.ts): a web
// whose CAMPAIGN_AUDIENCE_LIVE_LIMIT is 2 serves an audience of 3 its kept count with countedAt,
// the test's worker counting it; stale once the campaign changes or the count is old; counted again
// on POST …/audience/recount. Small audiences are counted at each request (audience.test.ts).
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { createContact, workspace } from '../events/support.ts';
import { type Client, readResponse, type TestResponse } from '../support/client.ts';
import { expectDocumented } from '../support/documented.ts';
import { eventually, expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { type SecondWeb, server, startSecondWeb } from '../support/server.ts';
import { broadcastTo, createCampaign, goldSegment } from './support.ts';

const AUDIENCE = '/api/workspaces/{workspaceId}/campaigns/{campaignId}/audience';
const RECOUNT = `${AUDIENCE}/recount`;

/** Requests to the web whose live limit is 2, with an API key. */
function on(web: SecondWeb, key: string) {
  return async (method: string, path: string): Promise<TestResponse> =>
    readResponse(await fetch(web.url + path, { method, headers: { authorization: `Bearer ${key}` } }));
}

/** Three gold contacts and their segment: its id. */
async function threeGold(admin: Client, base: string) {
  for (const email of ['a@kept.test', 'b@kept.test', 'c@kept.test'])
    await createContact(admin, base, { email, attributes: { tier: 'gold' } });
  return goldSegment(admin, base);
}

describe('campaigns: a large broadcast audience, counted in the background', () => {
  let limited: SecondWeb;
  before(async () => {
    limited = await startSecondWeb({ CAMPAIGN_AUDIENCE_LIVE_LIMIT: 2 });
  });
  after(async () => {
    await limited?.stop();
  });

  it('answers 202 until the worker has counted it, then the kept count with countedAt; stale after an edit or with age', async () => {
    const { admin, base, workspaceId, withScopes } = await workspace({ listening: false });
    const segmentId = await threeGold(admin, base);
    const campaign = await createCampaign(admin, base, broadcastTo(segmentId));
    const key = (await withScopes(['campaigns:read', 'campaigns:write'])).apiKey!;
    const call = on(limited, key);
    const path = `${base}/campaigns/${campaign.id}/audience`;

    // The main web's limit is the default: 3 members are counted there at each request.
    const live = await admin.get(path);
    expect(live.status, live.text).to.equal(200);
    expect(live.body).to.include({ members: 3, reached: 3, stale: false, countingSince: null });
    expect(Date.now() - new Date(live.body.countedAt).getTime()).to.be.below(60_000);

    const first = await call('GET', path);
    expect(first.status, first.text).to.equal(202);
    await expectDocumented('get', AUDIENCE, first);
    expect(first.body).to.include({ campaignId: campaign.id, segmentId, members: 3 });
    expect(first.headers.get('retry-after')).to.equal('5');
    const kept = await eventually(async () => {
      const response = await call('GET', path);
      return response.status === 200 ? response : undefined;
    });
    await expectDocumented('get', AUDIENCE, kept);
    expect(kept.body).to.include({ members: 3, reached: 3, stale: false, countingSince: null });
    expect(new Date(kept.body.countedAt).getTime()).to.be.at.least(
      new Date(first.body.countingSince).getTime(),
    );

    // A new member: the kept figures stand (still fresh) until counted again on demand.
    await createContact(admin, base, { email: 'd@kept.test', attributes: { tier: 'gold' } });
    await eventually(async () => (await admin.get(path)).body.members === 4);
    expect((await call('GET', path)).body).to.include({ members: 3, countedAt: kept.body.countedAt });
    const recount = await call('POST', `${path}/recount`);
    expect(recount.status, recount.text).to.equal(202);
    await expectDocumented('post', RECOUNT, recount);
    expect(recount.body).to.include({ campaignId: campaign.id, members: 4 });
    const recounted = await eventually(async () => {
      const body = (await call('GET', path)).body;
      return body.members === 4 && body.countingSince === null ? body : undefined;
    });
    expect(recounted).to.include({ reached: 4, stale: false });

    // Another send time: the kept figures are served as stale while they are counted again.
    const sendAt = new Date(Date.now() + 86_400_000).toISOString();
    const edited = await admin.patch(`${base}/campaigns/${campaign.id}`, broadcastTo(segmentId, sendAt));
    expect(edited.status, edited.text).to.equal(200);
    const stale = await call('GET', path);
    expect(stale.status).to.equal(200);
    expect(stale.body).to.include({ stale: true, countedAt: recounted.countedAt, at: recounted.at });
    const fresh = await eventually(async () => {
      const body = (await call('GET', path)).body;
      return body.stale === false ? body : undefined;
    });
    expect(fresh).to.include({ at: sendAt, countingSince: null });

    // Figures older than ten minutes are stale too.
    await server().context.db.query(sql.typeAlias('void')`
      update campaign_audiences set counted_at = counted_at - interval '11 minutes'
      where workspace_id = ${workspaceId} and campaign_id = ${campaign.id}`);
    const old = await call('GET', path);
    expect(old.body.stale).to.equal(true);
    expect(old.body.countingSince).to.be.a('string');
    await eventually(async () => (await call('GET', path)).body.stale === false);
  });

  it('counts again on POST …/recount for a reader of the campaign, never another workspace’s or a non-broadcast', async () => {
    const { admin, base, workspaceId, withScopes } = await workspace({ listening: false });
    const segmentId = await threeGold(admin, base);
    const campaign = await createCampaign(admin, base, broadcastTo(segmentId));
    const path = `${base}/campaigns/${campaign.id}/audience/recount`;

    const reader = await withScopes(['campaigns:read']);
    const asked = await reader.post(path);
    expect(asked.status, asked.text).to.equal(202);
    await expectDocumented('post', RECOUNT, asked);
    // One count at a time: while one is under way (marked as a worker holds it), asking again
    // answers that count and queues none; a mark older than a count can take was lost: a new one goes.
    const db = server().context.db;
    const jobs = () =>
      db.oneFirst(sql.type(z.object({ n: z.number() }))`
        select count(*)::int as n from pgboss.job
        where name = 'campaigns.audience' and singleton_key = ${`${workspaceId}/${campaign.id}`}`);
    // The count asked for above ends first (the worker clears its mark).
    await eventually(
      async () =>
        (await db.oneFirst(sql.type(z.object({ since: z.string().nullable() }))`
          select counting_since as since from campaign_audiences
          where workspace_id = ${workspaceId} and campaign_id = ${campaign.id}`)) === null,
    );
    const mark = (age: string) =>
      db.oneFirst(sql.type(z.object({ since: z.string() }))`
        update campaign_audiences set counting_since = now() - ${age}::interval
        where workspace_id = ${workspaceId} and campaign_id = ${campaign.id} returning counting_since as since`);
    const before = await jobs();
    const underWay = await mark('1 second');
    const again = await reader.post(path);
    expect(again.status).to.equal(202);
    expect(again.body.countingSince).to.equal(underWay);
    expect(await jobs()).to.equal(before);
    await mark('1 hour');
    const lost = await reader.post(path);
    expect(lost.body.countingSince).to.not.equal(underWay);
    expect(await jobs()).to.equal(before + 1);

    const noScope = await withScopes(['contacts:read']);
    expectProblem(await noScope.post(path), 403);
    const other = await workspaceWithAdmin();
    expectProblem(await other.client.post(path), 404);
    expectProblem(
      await other.client.post(
        `/api/workspaces/${other.workspaceId}/campaigns/${campaign.id}/audience/recount`,
      ),
      404,
    );
    const triggered = await createCampaign(admin, base);
    expectProblem(await admin.post(`${base}/campaigns/${triggered.id}/audience/recount`), 409);
    expectProblem(await admin.post(`${base}/campaigns/cmp_01JQ7ZD4W6N0000000000000ZZ/audience/recount`), 404);
  });
});
