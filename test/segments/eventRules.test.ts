// Event conditions (count, within, where), lead score conditions and all/any/not nesting, and
// that ingest keeps membership current before the API answers.
import { expect } from 'chai';
import { z } from 'zod';
import { sql, type Tx } from '../../src/db/pool.ts';
import { reevaluateSegments, type SegmentChange } from '../../src/segments/evaluate.ts';
import { findSegmentsDependingOn } from '../../src/segments/queries.ts';
import { createContact, track, workspace } from '../events/support.ts';
import { server } from '../support/server.ts';
import { createSegment, daysAgo, memberIds, membersOf, outgoingEvents, setLeadScore } from './helpers.ts';

const Pair = z.object({ segment_id: z.string(), contact_id: z.string() });

/** Memberships of these segments as sorted "segment contact" strings. */
async function membershipPairs(segmentIds: string[]): Promise<string[]> {
  const rows = await server().context.db.any(sql.type(Pair)`
    select segment_id, contact_id from segment_memberships where segment_id = any(${sql.array(segmentIds, 'text')})
  `);
  return rows.map((row) => `${row.segment_id} ${row.contact_id}`).sort();
}

const pairsOf = (changes: SegmentChange[], change: SegmentChange['change']) =>
  changes
    .filter((item) => item.change === change)
    .map((item) => `${item.segmentId} ${item.contactId}`)
    .sort();

/** Replaces the memberships of these segments by `pairs` ("segment contact" strings). */
async function invertMemberships(tx: Tx, workspaceId: string, segmentIds: string[], pairs: string[]) {
  await tx.query(sql.typeAlias('void')`
    delete from segment_memberships where segment_id = any(${sql.array(segmentIds, 'text')})
  `);
  await tx.query(sql.typeAlias('void')`
    insert into segment_memberships (workspace_id, segment_id, contact_id)
    select ${workspaceId}, split_part(pair, ' ', 1), split_part(pair, ' ', 2)
    from unnest(${sql.array(pairs, 'text')}) as pair
  `);
}

describe('segments: event, lead score and nested conditions', () => {
  let ctx: Awaited<ReturnType<typeof workspace>>;
  const ids: Record<string, string> = {};
  const members = (rule: unknown) => membersOf(ctx.admin, ctx.base, ids, rule);

  before(async () => {
    ctx = await workspace();
    for (const label of ['ada', 'bob', 'cy', 'dee']) {
      ids[label] = (await createContact(ctx.admin, ctx.base, { email: `${label}@example.com` })).id;
    }
    const purchase = (label: string, amount: number, days: number) =>
      track(ctx.admin, ctx.base, {
        type: 'purchase',
        contactId: ids[label],
        metadata: { amount, currency: 'EUR' },
        timestamp: daysAgo(days),
      });
    await purchase('ada', 150, 0.01);
    await purchase('ada', 50, 40);
    await purchase('bob', 200, 10);
    await purchase('bob', 120, 5);
    await track(ctx.admin, ctx.base, {
      type: 'page_view',
      contactId: ids.cy,
      metadata: { path: '/pricing' },
    });
    await setLeadScore(ids.ada, 80);
    await setLeadScore(ids.bob, 50);
    await setLeadScore(ids.cy, -5);
  });

  const cases: [string, unknown, string[]][] = [
    ['did the event (count defaults to gte 1)', { event: 'purchase' }, ['ada', 'bob']],
    ['count gte', { event: 'purchase', count: { gte: 2 } }, ['ada', 'bob']],
    ['count within a window', { event: 'purchase', count: { gte: 2 }, within: 'P30D' }, ['bob']],
    ['count eq 0: never did it', { event: 'purchase', count: { eq: 0 } }, ['cy', 'dee']],
    [
      'count lt and gt together',
      { event: 'purchase', count: { gt: 0, lt: 2 }, within: 'P7D' },
      ['ada', 'bob'],
    ],
    ['count lte', { event: 'purchase', count: { lte: 1 } }, ['cy', 'dee']],
    [
      'where on metadata',
      { event: 'purchase', within: 'P30D', where: [{ path: 'amount', op: 'gt', value: 100 }] },
      ['ada', 'bob'],
    ],
    [
      'where with count',
      { event: 'purchase', count: { gte: 2 }, where: [{ path: 'amount', op: 'gte', value: 120 }] },
      ['bob'],
    ],
    [
      'where on a string',
      { event: 'page_view', where: [{ path: 'path', op: 'starts_with', value: '/PRIC' }] },
      ['cy'],
    ],
    ['leadScore gte', { leadScore: { gte: 50 } }, ['ada', 'bob']],
    ['leadScore range', { leadScore: { gt: 0, lt: 80 } }, ['bob']],
    ['leadScore eq and lte', { leadScore: { lte: 0 } }, ['cy', 'dee']],
    ['all', { all: [{ event: 'purchase' }, { leadScore: { gte: 60 } }] }, ['ada']],
    ['any', { any: [{ event: 'page_view' }, { leadScore: { eq: 50 } }] }, ['bob', 'cy']],
    ['not', { not: { event: 'purchase' } }, ['cy', 'dee']],
    [
      'nested all / any / not',
      {
        any: [
          { all: [{ field: 'email', op: 'starts_with', value: 'a' }, { not: { leadScore: { lt: 10 } } }] },
          { not: { any: [{ event: 'purchase' }, { event: 'page_view' }] } },
        ],
      },
      ['ada', 'dee'],
    ],
  ];

  for (const [name, rule, expected] of cases) {
    it(name, async () => {
      expect(await members(rule)).to.deep.equal(expected);
    });
  }

  it('re-evaluating known contacts, set-based as ingest does, agrees with every case above', async () => {
    // The cases above were computed over the whole workspace, with a subquery per condition.
    const db = server().context.db;
    const on = { eventTypes: [], fields: [], score: false, all: true };
    const segments = await findSegmentsDependingOn(db, ctx.workspaceId, on);
    const segmentIds = segments.map((segment) => segment.id);
    const contactIds = Object.values(ids);
    const members = await membershipPairs(segmentIds);
    const others = segmentIds
      .flatMap((segmentId) => contactIds.map((contactId) => `${segmentId} ${contactId}`))
      .filter((pair) => !members.includes(pair))
      .sort();
    const outcome = await db
      .transaction(async (tx) => {
        expect(await reevaluateSegments(tx, ctx.workspaceId, segments, contactIds)).to.deep.equal([]);
        // Every membership inverted: each must come back as an entry or leave as an exit.
        await invertMemberships(tx, ctx.workspaceId, segmentIds, others);
        const changes = await reevaluateSegments(tx, ctx.workspaceId, segments, contactIds);
        expect(pairsOf(changes, 'entered')).to.deep.equal(members);
        expect(pairsOf(changes, 'exited')).to.deep.equal(others);
        throw new Error('roll back');
      })
      .catch((error: Error) => error.message);
    expect(outcome).to.equal('roll back');
    expect(await membershipPairs(segmentIds)).to.deep.equal(members);
  });

  it('an ingested event moves membership before the 201 and emits segment.entered', async () => {
    const segment = await createSegment(ctx.admin, ctx.base, {
      event: 'signup',
      where: [{ path: 'plan', op: 'eq', value: 'pro' }],
    });
    expect(await memberIds(ctx.admin, ctx.base, segment.id)).to.deep.equal([]);
    await track(ctx.admin, ctx.base, { type: 'signup', contactId: ids.dee, metadata: { plan: 'free' } });
    expect(await memberIds(ctx.admin, ctx.base, segment.id)).to.deep.equal([]);
    await track(ctx.admin, ctx.base, { type: 'signup', contactId: ids.dee, metadata: { plan: 'Pro' } });
    expect(await memberIds(ctx.admin, ctx.base, segment.id)).to.deep.equal([ids.dee]);
    const entered = await outgoingEvents(ctx.workspaceId, 'segment.entered');
    expect(entered.filter((data) => data.segmentId === segment.id)).to.deep.equal([
      { segmentId: segment.id, contactId: ids.dee },
    ]);
  });

  it('a contact created by an event is evaluated against every segment', async () => {
    const segment = await createSegment(ctx.admin, ctx.base, {
      field: 'email',
      op: 'ends_with',
      value: '@new.example',
    });
    const event = await track(ctx.admin, ctx.base, { type: 'page_view', email: 'eve@new.example' });
    expect(await memberIds(ctx.admin, ctx.base, segment.id)).to.deep.equal([event.contact.id]);
  });
});
