// Segment CRUD over HTTP: pagination, counts, recomputation on edit with exit events, deletion
// (refused while a campaign uses the segment), other workspaces' segments as 404, scope refusals.
import { expect } from 'chai';
import { createContact, workspace } from '../events/support.ts';
import { expectProblem } from '../support/factories.ts';
import { createSegment, memberIds, outgoingEvents, whenReady } from './helpers.ts';

const emailRule = (domain: string) => ({ field: 'email', op: 'ends_with', value: domain });

describe('segments: routes', () => {
  let ctx: Awaited<ReturnType<typeof workspace>>;
  const ids: Record<string, string> = {};

  before(async () => {
    ctx = await workspace();
    for (const email of ['a@one.test', 'b@one.test', 'c@two.test']) {
      ids[email[0]] = (await createContact(ctx.admin, ctx.base, { email })).id;
    }
  });

  it('creates a segment computing, then ready with its members computed and counted', async () => {
    const response = await ctx.admin.post(`${ctx.base}/segments`, {
      name: ' One ',
      description: 'people at one.test',
      rules: emailRule('@one.test'),
    });
    expect(response.status, response.text).to.equal(201);
    expect(response.body).to.include({
      name: 'One',
      description: 'people at one.test',
      status: 'computing',
      computedAt: null,
    });
    expect(response.body.id).to.match(/^seg_/);
    expect(response.body.rules).to.deep.equal(emailRule('@one.test'));
    const ready = await whenReady(ctx.admin, ctx.base, response.body.id);
    expect(ready).to.include({ status: 'ready', count: 2 });
    expect(ready.computedAt).to.be.a('string');
    const entered = (await outgoingEvents(ctx.workspaceId, 'segment.entered')).filter(
      (data) => data.segmentId === response.body.id,
    );
    expect(entered.map((data) => data.contactId).sort()).to.deep.equal([ids.a, ids.b].sort());
  });

  it('gets a segment, its count and its contacts', async () => {
    const segment = await createSegment(ctx.admin, ctx.base, emailRule('@two.test'));
    const got = await ctx.admin.get(`${ctx.base}/segments/${segment.id}`);
    expect(got.status).to.equal(200);
    expect(got.body).to.deep.equal(segment);
    const count = await ctx.admin.get(`${ctx.base}/segments/${segment.id}/count`);
    expect(count.body).to.deep.equal({ segmentId: segment.id, count: 1, status: 'ready' });
    const contacts = await ctx.admin.get(`${ctx.base}/segments/${segment.id}/contacts`);
    expect(contacts.body).to.include({ page: 1, limit: 50, total: 1 });
    expect(contacts.body.data[0]).to.include({ id: ids.c, email: 'c@two.test', leadScore: 0 });
    expect(contacts.body.data[0]).to.have.keys(
      'id',
      'email',
      'firstName',
      'lastName',
      'phone',
      'anonymousId',
      'attributes',
      'leadScore',
      'createdAt',
      'updatedAt',
    );
  });

  it('lists segments oldest first, paginated', async () => {
    const own = await workspace();
    const made = [];
    for (const name of ['s1', 's2', 's3'])
      made.push(await createSegment(own.admin, own.base, emailRule('x'), name));
    const page = await own.admin.get(`${own.base}/segments?page=2&limit=2`);
    expect(page.status).to.equal(200);
    expect(page.body).to.deep.equal({ data: [made[2]], page: 2, limit: 2, total: 3 });
    const past = await own.admin.get(`${own.base}/segments?page=9`);
    expect(past.body).to.deep.equal({ data: [], page: 9, limit: 50, total: 3 });
    expectProblem(await own.admin.get(`${own.base}/segments?limit=201`), 400);
  });

  it('renames without recomputing, and recomputes new rules emitting exits', async () => {
    const segment = await createSegment(ctx.admin, ctx.base, emailRule('@one.test'));
    const renamed = await ctx.admin.patch(`${ctx.base}/segments/${segment.id}`, {
      name: 'Renamed',
      description: null,
    });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.body).to.include({ name: 'Renamed', description: null, count: 2 });
    const edited = await ctx.admin.patch(`${ctx.base}/segments/${segment.id}`, {
      rules: { field: 'email', op: 'in', value: ['b@one.test', 'c@two.test'] },
    });
    expect(edited.body).to.include({ name: 'Renamed', status: 'computing' });
    expect(await whenReady(ctx.admin, ctx.base, segment.id)).to.include({ count: 2, status: 'ready' });
    expect(await memberIds(ctx.admin, ctx.base, segment.id)).to.deep.equal([ids.b, ids.c].sort());
    const exited = (await outgoingEvents(ctx.workspaceId, 'segment.exited')).filter(
      (data) => data.segmentId === segment.id,
    );
    expect(exited).to.deep.equal([{ segmentId: segment.id, contactId: ids.a }]);
  });

  it('deletes a segment, then answers 404', async () => {
    const segment = await createSegment(ctx.admin, ctx.base, emailRule('x'));
    const deleted = await ctx.admin.delete(`${ctx.base}/segments/${segment.id}`);
    expect(deleted.status).to.equal(204);
    expectProblem(await ctx.admin.get(`${ctx.base}/segments/${segment.id}`), 404);
    expectProblem(await ctx.admin.delete(`${ctx.base}/segments/${segment.id}`), 404);
  });

  it('refuses to delete a segment a campaign is triggered by (409)', async () => {
    const segment = await createSegment(ctx.admin, ctx.base, emailRule('x'));
    const campaign = await ctx.admin.post(`${ctx.base}/campaigns`, {
      name: 'Welcome',
      trigger: { type: 'segment_entered', segmentId: segment.id },
      steps: [{ type: 'wait', duration: 'P1D' }],
    });
    expect(campaign.status, campaign.text).to.equal(201);
    const refused = expectProblem(await ctx.admin.delete(`${ctx.base}/segments/${segment.id}`), 409);
    expect(refused.detail).to.match(/campaign/);
    expect((await ctx.admin.get(`${ctx.base}/segments/${segment.id}`)).status).to.equal(200);
  });

  it("answers 404 for another workspace's segment on every route", async () => {
    const segment = await createSegment(ctx.admin, ctx.base, emailRule('x'));
    const other = await workspace();
    const path = `${other.base}/segments/${segment.id}`;
    expectProblem(await other.admin.get(path), 404);
    expectProblem(await other.admin.get(`${path}/contacts`), 404);
    expectProblem(await other.admin.get(`${path}/count`), 404);
    expectProblem(await other.admin.patch(path, { name: 'Mine' }), 404);
    expectProblem(await other.admin.delete(path), 404);
    expectProblem(await other.admin.get(`${ctx.base}/segments`), 404);
    expect((await ctx.admin.get(`${ctx.base}/segments/${segment.id}`)).body.name).to.equal('Segment');
  });

  it('lets API keys read with segments:read and write with segments:write, naming the missing scope', async () => {
    const reader = await ctx.withScopes(['segments:read']);
    const writer = await ctx.withScopes(['segments:write']);
    const stranger = await ctx.withScopes(['contacts:read']);
    const segment = await createSegment(writer, ctx.base, emailRule('@one.test'));
    expect((await reader.get(`${ctx.base}/segments/${segment.id}/contacts`)).status).to.equal(200);
    const refusedWrite = expectProblem(
      await reader.post(`${ctx.base}/segments`, { name: 'X', rules: emailRule('x') }),
      403,
    );
    expect(refusedWrite.detail).to.contain('segments:write');
    expectProblem(await reader.delete(`${ctx.base}/segments/${segment.id}`), 403);
    const refusedRead = expectProblem(await stranger.get(`${ctx.base}/segments`), 403);
    expect(refusedRead.detail).to.contain('segments:read');
    expectProblem(await writer.get(`${ctx.base}/segments/${segment.id}`), 403);
  });
});
