// Ingest caches each workspace's segments, campaigns and scoring rules per process, under a version
// that every change moves (src/events/definitions.ts, sql/0009). The next event after a change must
// see it, in this process and in any other.
import { expect } from 'chai';
import { createSegment, memberIds } from '../segments/helpers.ts';
import { createContact, track, workspace } from './support.ts';

type Ctx = Awaited<ReturnType<typeof workspace>>;

async function ok(promise: Promise<{ status: number; text: string; body: unknown }>, status = 200) {
  const response = await promise;
  expect(response.status, response.text).to.equal(status);
  return response.body as { id: string; leadScore: number };
}

async function scoreAfterPurchase(ctx: Ctx, contactId: string) {
  await track(ctx.admin, ctx.base, { type: 'purchase', contactId });
  return (await ok(ctx.admin.get(`${ctx.base}/contacts/${contactId}`))).leadScore;
}

describe('events: cached definitions follow every change', () => {
  it('applies a scoring rule created, edited, paused and deleted after the cache was filled', async () => {
    const ctx = await workspace();
    const { id: contactId } = await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' });
    expect(await scoreAfterPurchase(ctx, contactId)).to.equal(0); // cache filled: no rules
    const rules = `${ctx.base}/scoring-rules`;
    const rule = await ok(
      ctx.admin.post(rules, { name: 'Purchase', eventType: 'purchase', points: 10 }),
      201,
    );
    expect(await scoreAfterPurchase(ctx, contactId)).to.equal(10);
    await ok(ctx.admin.patch(`${rules}/${rule.id}`, { points: 3 }));
    expect(await scoreAfterPurchase(ctx, contactId)).to.equal(13);
    await ok(ctx.admin.patch(`${rules}/${rule.id}`, { active: false }));
    expect(await scoreAfterPurchase(ctx, contactId)).to.equal(13);
    await ok(ctx.admin.patch(`${rules}/${rule.id}`, { active: true }));
    expect(await scoreAfterPurchase(ctx, contactId)).to.equal(16);
    await ok(ctx.admin.delete(`${rules}/${rule.id}`), 204);
    expect(await scoreAfterPurchase(ctx, contactId)).to.equal(16);
  });

  it('evaluates a segment edited after the cache was filled by its new rules', async () => {
    const ctx = await workspace();
    const { id: segment } = await createSegment(ctx.admin, ctx.base, { event: 'purchase' });
    const { id: contactId } = await createContact(ctx.admin, ctx.base, { email: 'bo@example.com' });
    await track(ctx.admin, ctx.base, { type: 'purchase', contactId });
    expect(await memberIds(ctx.admin, ctx.base, segment)).to.deep.equal([contactId]);
    await ok(
      ctx.admin.patch(`${ctx.base}/segments/${segment}`, { rules: { event: 'purchase', count: { gte: 3 } } }),
    );
    // The edit recomputes the segment; the next purchase is evaluated by the new rule (2 < 3).
    await track(ctx.admin, ctx.base, { type: 'purchase', contactId });
    expect(await memberIds(ctx.admin, ctx.base, segment)).to.deep.equal([]);
    await track(ctx.admin, ctx.base, { type: 'purchase', contactId });
    expect(await memberIds(ctx.admin, ctx.base, segment)).to.deep.equal([contactId]);
  });

  it('enrolls through a campaign activated after the cache was filled, and not once it is paused', async () => {
    const ctx = await workspace();
    const { id: contactId } = await createContact(ctx.admin, ctx.base, { email: 'cy@example.com' });
    await track(ctx.admin, ctx.base, { type: 'signup', contactId });
    const campaign = await ok(
      ctx.admin.post(`${ctx.base}/campaigns`, {
        name: 'Welcome',
        trigger: { type: 'event', eventType: 'signup' },
        steps: [{ type: 'send', channel: 'email', subject: 'Hi', body: 'Hello' }],
        reentry: 'always',
      }),
      201,
    );
    const enrollments = async () =>
      (await ok(ctx.admin.get(`${ctx.base}/campaigns/${campaign.id}/enrollments`))) as unknown as {
        total: number;
      };
    await track(ctx.admin, ctx.base, { type: 'signup', contactId });
    expect((await enrollments()).total).to.equal(0); // a draft enrolls no one
    await ok(ctx.admin.post(`${ctx.base}/campaigns/${campaign.id}/activate`));
    await track(ctx.admin, ctx.base, { type: 'signup', contactId });
    expect((await enrollments()).total).to.equal(1);
    await ok(ctx.admin.post(`${ctx.base}/campaigns/${campaign.id}/pause`));
    await track(ctx.admin, ctx.base, { type: 'signup', contactId });
    expect((await enrollments()).total).to.equal(1);
  });
});
