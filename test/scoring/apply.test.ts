// Scoring at ingest: matching type and `where`, repeatable and cooldown, history, segments that
// read the score, all visible in the event's 201; and decay from the scheduler.
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { runDecay } from '../../src/scoring/decay.ts';
import { createContact, track, workspace } from '../events/support.ts';
import { createSegment, daysAgo, memberIds, outgoingEvents } from '../segments/helpers.ts';
import { expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';

type Ctx = Awaited<ReturnType<typeof workspace>>;

async function addRule(ctx: Ctx, body: Record<string, unknown>) {
  const response = await ctx.admin.post(`${ctx.base}/scoring-rules`, { name: 'rule', ...body });
  expect(response.status, response.text).to.equal(201);
  return response.body.id as string;
}

async function scoreOf(ctx: Ctx, contactId: string): Promise<number> {
  return (await ctx.admin.get(`${ctx.base}/contacts/${contactId}`)).body.leadScore;
}

async function adaAndBob(ctx: Ctx): Promise<[string, string]> {
  const ada = await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' });
  const bob = await createContact(ctx.admin, ctx.base, { email: 'bob@example.com' });
  return [ada.id, bob.id];
}

async function history(ctx: Ctx, contactId: string) {
  const response = await ctx.admin.get(`${ctx.base}/contacts/${contactId}/score-history`);
  expect(response.status, response.text).to.equal(200);
  return response.body;
}

describe('scoring: applying rules', () => {
  it('adds points for matching events, honouring type, where and active', async () => {
    const ctx = await workspace();
    const contact = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    const big = await addRule(ctx, {
      eventType: 'purchase',
      points: 20,
      where: [{ path: 'amount', op: 'gte', value: 100 }],
    });
    await addRule(ctx, { eventType: 'purchase', points: 1 });
    await addRule(ctx, { eventType: 'purchase', points: 500, active: false });
    await addRule(ctx, { eventType: 'unsubscribe', points: -30 });
    await track(ctx.admin, ctx.base, { type: 'purchase', contactId: contact, metadata: { amount: 50 } });
    expect(await scoreOf(ctx, contact)).to.equal(1);
    const event = await track(ctx.admin, ctx.base, {
      type: 'purchase',
      contactId: contact,
      metadata: { amount: 150 },
    });
    expect(await scoreOf(ctx, contact)).to.equal(22);
    await track(ctx.admin, ctx.base, { type: 'unsubscribe', contactId: contact });
    await track(ctx.admin, ctx.base, { type: 'page_view', contactId: contact });
    expect(await scoreOf(ctx, contact)).to.equal(-8);

    const page = await history(ctx, contact);
    expect(page).to.include({ page: 1, limit: 50, total: 4 });
    expect(page.data.map((item: { delta: number }) => item.delta)).to.deep.equal([-30, 1, 20, 1]);
    expect(page.data[2]).to.include({
      ruleId: big,
      eventId: event.id,
      reason: 'rule',
      previousScore: 1,
      score: 21,
      delta: 20,
    });
    const emitted = await outgoingEvents(ctx.workspaceId, 'contact.score_changed');
    expect(emitted[1]).to.deep.equal({ contactId: contact, previousScore: 1, score: 21, ruleId: big });
    expect(emitted).to.have.length(4);
    // A deleted rule's id stays in the history (ruleId is null only for decay and merges).
    expect((await ctx.admin.delete(`${ctx.base}/scoring-rules/${big}`)).status).to.equal(204);
    expect((await history(ctx, contact)).data[2]).to.include({ ruleId: big, reason: 'rule' });
  });

  it('scores a non-repeatable rule once per contact, even within one batch', async () => {
    const ctx = await workspace();
    const [ada, bob] = await adaAndBob(ctx);
    await addRule(ctx, { eventType: 'signup', points: 50, repeatable: false });
    const batch = await ctx.admin.post(`${ctx.base}/events/batch`, {
      events: [
        { type: 'signup', contactId: ada },
        { type: 'signup', contactId: ada },
        { type: 'signup', contactId: bob },
      ],
    });
    expect(batch.status, batch.text).to.equal(201);
    await track(ctx.admin, ctx.base, { type: 'signup', contactId: ada });
    expect(await scoreOf(ctx, ada)).to.equal(50);
    expect(await scoreOf(ctx, bob)).to.equal(50);
    expect((await history(ctx, ada)).total).to.equal(1);
  });

  it('ignores matching events within the cooldown, measured in event time', async () => {
    const ctx = await workspace();
    const contact = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    await addRule(ctx, { eventType: 'visit', points: 5, cooldown: 'P1D' });
    const visit = (days: number) =>
      track(ctx.admin, ctx.base, { type: 'visit', contactId: contact, timestamp: daysAgo(days) });
    await visit(3); // scores
    await visit(2.5); // within a day of the last scored visit
    await visit(1.9); // a day and more after: scores
    await visit(3.5); // older than the last scored one: within the cooldown
    await visit(0.5); // scores
    expect(await scoreOf(ctx, contact)).to.equal(15);
  });

  it('moves contacts into score segments before the 201', async () => {
    const ctx = await workspace();
    const contact = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    const hot = await createSegment(ctx.admin, ctx.base, { leadScore: { gte: 30 } });
    await addRule(ctx, { eventType: 'demo_request', points: 30 });
    await track(ctx.admin, ctx.base, { type: 'demo_request', contactId: contact });
    expect(await memberIds(ctx.admin, ctx.base, hot.id)).to.deep.equal([contact]);
    const contacts = await ctx.admin.get(`${ctx.base}/contacts?segmentId=${hot.id}`);
    expect(contacts.body.data[0].leadScore).to.equal(30);
  });

  it('moves contacts whose score crosses a bound, either way, and keeps those that move within one', async () => {
    const ctx = await workspace();
    const contact = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    const hot = await createSegment(ctx.admin, ctx.base, { leadScore: { gte: 30 } });
    const cold = await createSegment(ctx.admin, ctx.base, { not: { leadScore: { gte: 20 } } });
    const exact = await createSegment(ctx.admin, ctx.base, { any: [{ leadScore: { eq: 35 } }] });
    await addRule(ctx, { eventType: 'visit', points: 5 });
    await addRule(ctx, { eventType: 'complaint', points: -40 });
    const send = async (...types: string[]) => {
      const events = types.map((type) => ({ type, contactId: contact }));
      const response = await ctx.admin.post(`${ctx.base}/events/batch`, { events });
      expect(response.status, response.text).to.equal(201);
      return {
        hot: (await memberIds(ctx.admin, ctx.base, hot.id)).includes(contact),
        cold: (await memberIds(ctx.admin, ctx.base, cold.id)).includes(contact),
        exact: (await memberIds(ctx.admin, ctx.base, exact.id)).includes(contact),
      };
    };
    expect(await send('visit', 'visit')).to.deep.equal({ hot: false, cold: true, exact: false }); // 10
    expect(await send('visit', 'visit')).to.deep.equal({ hot: false, cold: false, exact: false }); // 20
    expect(await send('visit', 'visit')).to.deep.equal({ hot: true, cold: false, exact: false }); // 30
    expect(await send('visit')).to.deep.equal({ hot: true, cold: false, exact: true }); // 35
    expect(await send('visit')).to.deep.equal({ hot: true, cold: false, exact: false }); // 40
    expect(await send('complaint')).to.deep.equal({ hot: false, cold: true, exact: false }); // 0
    expect(await scoreOf(ctx, contact)).to.equal(0);
  });

  it("reads each limited rule's history only for the contacts that brought its event type", async () => {
    const ctx = await workspace();
    const [ada, bob] = await adaAndBob(ctx);
    await addRule(ctx, { eventType: 'signup', points: 50, repeatable: false });
    await addRule(ctx, { eventType: 'demo', points: 7, cooldown: 'P1D' });
    await track(ctx.admin, ctx.base, { type: 'signup', contactId: ada }); // ada 50
    await track(ctx.admin, ctx.base, { type: 'demo', contactId: bob }); // bob 7
    const batch = await ctx.admin.post(`${ctx.base}/events/batch`, {
      events: [
        { type: 'signup', contactId: ada }, // scored before: nothing
        { type: 'demo', contactId: ada }, // first demo: 7
        { type: 'signup', contactId: bob }, // first signup: 50
        { type: 'demo', contactId: bob }, // within the cooldown: nothing
      ],
    });
    expect(batch.status, batch.text).to.equal(201);
    expect(await scoreOf(ctx, ada)).to.equal(57);
    expect(await scoreOf(ctx, bob)).to.equal(57);
  });

  it('answers 404 for score history of an unknown or foreign contact, and needs contacts:read', async () => {
    const ctx = await workspace();
    const contact = (await createContact(ctx.admin, ctx.base, { email: 'ada@example.com' })).id;
    expectProblem(await ctx.admin.get(`${ctx.base}/contacts/ct_nope/score-history`), 404);
    const other = await workspace();
    expectProblem(await other.admin.get(`${other.base}/contacts/${contact}/score-history`), 404);
    const segmentsKey = await ctx.withScopes(['segments:read']);
    const refused = expectProblem(
      await segmentsKey.get(`${ctx.base}/contacts/${contact}/score-history`),
      403,
    );
    expect(refused.detail).to.contain('contacts:read');
    const contactsKey = await ctx.withScopes(['contacts:read']);
    expect(
      (await contactsKey.get(`${ctx.base}/contacts/${contact}/score-history?limit=1`)).body,
    ).to.deep.equal({
      data: [],
      page: 1,
      limit: 1,
      total: 0,
    });
  });
});

describe('scoring: decay', () => {
  async function rewindDecayClock(workspaceId: string, by: string) {
    await server().context.db.query(sql.typeAlias('void')`
      update scoring_settings set last_decay_at = last_decay_at - ${by}::interval where workspace_id = ${workspaceId}
    `);
  }

  it('moves scores toward zero once per elapsed period, records it and updates score segments', async () => {
    const ctx = await workspace();
    const ids: Record<string, string> = {};
    for (const label of ['high', 'low', 'negative', 'zero']) {
      ids[label] = (await createContact(ctx.admin, ctx.base, { email: `${label}@example.com` })).id;
    }
    await addRule(ctx, { eventType: 'plus', points: 25 });
    await addRule(ctx, { eventType: 'minus', points: -3 });
    await track(ctx.admin, ctx.base, { type: 'plus', contactId: ids.high });
    await track(ctx.admin, ctx.base, { type: 'plus', contactId: ids.low });
    await ctx.admin.post(`${ctx.base}/events/batch`, {
      events: [...Array(6)].map(() => ({ type: 'minus', contactId: ids.low })),
    });
    await track(ctx.admin, ctx.base, { type: 'minus', contactId: ids.negative });
    const engaged = await createSegment(ctx.admin, ctx.base, { leadScore: { gte: 20 } });
    expect(await memberIds(ctx.admin, ctx.base, engaged.id)).to.deep.equal([ids.high]);

    await ctx.admin.put(`${ctx.base}/scoring-settings`, { decay: { points: 3, every: 'P1D' } });
    expect(await runDecay(server().context, ctx.workspaceId)).to.deep.equal([]);
    await rewindDecayClock(ctx.workspaceId, '2 days 1 hour');
    expect(await runDecay(server().context, ctx.workspaceId)).to.deep.equal([
      { workspaceId: ctx.workspaceId, periods: 2, changed: 3 },
    ]);
    const scores = await Promise.all(
      ['high', 'low', 'negative', 'zero'].map((label) => scoreOf(ctx, ids[label])),
    );
    expect(scores).to.deep.equal([19, 1, 0, 0]);
    expect(await memberIds(ctx.admin, ctx.base, engaged.id)).to.deep.equal([]);
    expect((await history(ctx, ids.high)).data[0]).to.include({
      reason: 'decay',
      ruleId: null,
      eventId: null,
      previousScore: 25,
      score: 19,
      delta: -6,
    });
    const emitted = await outgoingEvents(ctx.workspaceId, 'contact.score_changed');
    expect(emitted).to.deep.include({ contactId: ids.negative, previousScore: -3, score: 0, ruleId: null });
    expect(await runDecay(server().context, ctx.workspaceId)).to.deep.equal([]);
  });
});
