// The lead scores of an events import are computed set-wise (SQL for repeatable and once-only
// rules, Node for cooldowns, event by event near the clamp): they must be exactly what the
// per-event walk of ingest (scoreEvents) gives for the same events, rules, scores and history.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { RuleHistoryRow } from '../../src/scoring/applyQueries.ts';
import { ActiveRuleRow, type ScoredEvent, scoreEvents } from '../../src/scoring/index.ts';
import { createContact, outgoing, track, workspace } from '../events/support.ts';
import { server } from '../support/server.ts';
import { importFileOf, importJson, ndjson } from './support.ts';

const db = () => server().context.db;

const RULES = [
  { name: 'Purchase', eventType: 'purchase', points: 10 },
  { name: 'Big', eventType: 'purchase', points: 20, where: [{ path: 'amount', op: 'gt', value: 100 }] },
  { name: 'Signup', eventType: 'signup', points: 5, repeatable: false },
  { name: 'Demo', eventType: 'demo', points: 15, cooldown: 'P1D' },
  { name: 'Bounce', eventType: 'page_view', points: -1 },
  { name: 'Demo once', eventType: 'demo', points: 7, repeatable: false, cooldown: 'PT1H' },
];

const DAY = 86_400_000;
const at = (days: number) => new Date(Date.UTC(2024, 2, 1) + days * DAY).toISOString();

/** Rows for several contacts, out of time order, with ties on the timestamp (the line decides). */
function rows() {
  const types = ['purchase', 'signup', 'demo', 'page_view', 'purchase', 'demo'];
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < 60; i++) {
    out.push({
      id: `row-${i}`,
      type: types[Math.floor(i / 4) % types.length],
      email: ['old@example.com', 'new@example.com', 'max@example.com', 'min@example.com'][i % 4],
      metadata: { amount: (i * 37) % 200 },
      timestamp: at(((i * 7) % 13) / 4),
    });
  }
  // A tie on the timestamp where the later line's rule was created first: the line decides.
  out.push({ id: 'tie-1', type: 'page_view', email: 'new@example.com', timestamp: at(5) });
  out.push({
    id: 'tie-2',
    type: 'purchase',
    email: 'new@example.com',
    metadata: { amount: 150 },
    timestamp: at(5),
  });
  return out;
}

async function state(workspaceId: string) {
  const rules = await db().any(sql.type(ActiveRuleRow)`
    select id, event_type, points, "where", repeatable, cooldown_seconds from scoring_rules
    where workspace_id = ${workspaceId} and active order by created_at, id
  `);
  const scores = await db().any(sql.type(
    z.object({ id: z.string(), email: z.string(), lead_score: z.number() }),
  )`
    select id, email, lead_score from contacts where workspace_id = ${workspaceId}
  `);
  const history = await db().any(sql.type(RuleHistoryRow)`
    select sc.rule_id, sc.contact_id, max(coalesce(e.occurred_at, sc.created_at)) as last_at
    from score_changes sc left join events e on e.id = sc.event_id
    where sc.workspace_id = ${workspaceId} and sc.reason = 'rule' group by sc.rule_id, sc.contact_id
  `);
  return { rules, scores, history };
}

const Change = z.object({
  contact_id: z.string(),
  rule_id: z.string(),
  event_id: z.string(),
  previous_score: z.number(),
  score: z.number(),
});

describe('import events: lead scores', function () {
  this.timeout(60_000);

  it('scores exactly as ingest would, rule by rule and event by event', async () => {
    const { admin, base, workspaceId } = await workspace();
    for (const rule of RULES) expect((await admin.post(`${base}/scoring-rules`, rule)).status).to.equal(201);
    const hook = { name: 'all', url: 'https://example.com/hook', direction: 'OUTBOUND' };
    expect((await admin.post(`${base}/webhooks`, hook)).status).to.equal(201);
    await createContact(admin, base, { email: 'old@example.com' });
    await track(admin, base, { type: 'signup', email: 'old@example.com', timestamp: at(0) });
    await track(admin, base, { type: 'demo', email: 'old@example.com', timestamp: at(1) });
    // Near the clamp: a running sum cannot clamp, so these contacts take the per-event path.
    for (const [email, score] of [
      ['max@example.com', 1_999_999_990],
      ['min@example.com', -1_999_999_995],
    ] as const) {
      const contact = await createContact(admin, base, { email });
      await db().query(sql.unsafe`update contacts set lead_score = ${score} where id = ${contact.id}`);
    }
    const before = await state(workspaceId);
    const webhooksBefore = (await outgoing(workspaceId, 'contact.score_changed')).length;

    const file = rows();
    await importJson('events', importFileOf('ndjson', ndjson(file)), workspaceId);

    const ids = new Map(
      (
        await db().any(sql.type(z.object({ key: z.string(), event_id: z.string() }))`
          select key, event_id from event_idempotency_keys where workspace_id = ${workspaceId}
        `)
      ).map((row) => [row.key, row.event_id]),
    );
    const contacts = new Map((await state(workspaceId)).scores.map((contact) => [contact.email, contact.id]));
    const events: ScoredEvent[] = file
      .map((row, line) => ({ row, line }))
      .sort((a, b) => String(a.row.timestamp).localeCompare(String(b.row.timestamp)) || a.line - b.line)
      .map(({ row }) => ({
        id: ids.get(String(row.id))!,
        contactId: contacts.get(String(row.email))!,
        type: String(row.type),
        metadata: row.metadata as Record<string, unknown>,
        occurredAt: String(row.timestamp),
      }));
    const scores = new Map(before.scores.map((contact) => [contact.id, contact.lead_score]));
    for (const id of contacts.values()) if (!scores.has(id)) scores.set(id, 0);
    const expected = scoreEvents(before.rules, events, { scores, history: before.history });

    const recorded = await db().any(sql.type(Change)`
      select contact_id, rule_id, event_id, previous_score, score from score_changes
      where workspace_id = ${workspaceId} and event_id = any(${sql.array([...ids.values()], 'text')})
      order by contact_id, id
    `);
    const byContact = (list: z.infer<typeof Change>[]) =>
      [...list].sort((a, b) => a.contact_id.localeCompare(b.contact_id));
    expect(recorded).to.deep.equal(
      byContact(
        expected.map((change) => ({
          contact_id: change.contactId,
          rule_id: change.ruleId,
          event_id: change.eventId,
          previous_score: change.previousScore,
          score: change.score,
        })),
      ),
    );
    expect(expected.some((change) => change.score === 2_000_000_000)).to.equal(true);
    const after = new Map(
      (await state(workspaceId)).scores.map((contact) => [contact.id, contact.lead_score]),
    );
    for (const [id, score] of after) {
      const last = expected.filter((change) => change.contactId === id).at(-1);
      expect(score, id).to.equal(last ? last.score : scores.get(id));
    }
    // One contact.score_changed per contact whose score moved: from before the import to after.
    const webhooks = await outgoing(workspaceId, 'contact.score_changed');
    const moved = [...after].filter(([id, score]) => score !== scores.get(id));
    expect(webhooks.slice(webhooksBefore)).to.have.deep.members(
      moved.map(([id, score]) => ({ contactId: id, previousScore: scores.get(id), score, ruleId: null })),
    );
  });

  it('walks a cooldown rule over pages of contacts with more matches than a page holds, as ingest would', async () => {
    const { admin, base, workspaceId } = await workspace();
    const rule = { name: 'Demo', eventType: 'demo', points: 3, cooldown: 'PT1H' };
    expect((await admin.post(`${base}/scoring-rules`, rule)).status).to.equal(201);
    // 5 contacts × 900 matches: pages of ~2,000 matches (src/imports/scoreQueries.ts) cut between
    // contacts, never within one; a match every 25 minutes, so the cooldown skips some.
    const file = Array.from({ length: 4_500 }, (_, i) => ({
      id: `d${i}`,
      type: 'demo',
      email: `c${i % 5}@example.com`,
      timestamp: new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 5) * 25 * 60_000).toISOString(),
    }));
    await importJson('events', importFileOf('ndjson', ndjson(file)), workspaceId);
    const { rules, scores } = await state(workspaceId);
    const ids = new Map(
      (
        await db().any(sql.type(z.object({ key: z.string(), event_id: z.string() }))`
          select key, event_id from event_idempotency_keys where workspace_id = ${workspaceId}
        `)
      ).map((row) => [row.key, row.event_id]),
    );
    const contacts = new Map(scores.map((contact) => [contact.email, contact.id]));
    const expected = scoreEvents(
      rules,
      file.map((row) => ({
        id: ids.get(row.id)!,
        contactId: contacts.get(row.email)!,
        type: row.type,
        metadata: {},
        occurredAt: row.timestamp,
      })),
      { scores: new Map([...contacts.values()].map((id) => [id, 0])), history: [] },
    );
    expect(expected.length).to.be.within(1_000, 4_499); // the cooldown skipped some, not all
    const final = (id: string) => expected.filter((change) => change.contactId === id).at(-1)!.score;
    expect(Object.fromEntries(scores.map((contact) => [contact.email, contact.lead_score]))).to.deep.equal(
      Object.fromEntries([...contacts].map(([email, id]) => [email, final(id)])),
    );
    const recorded = await db().oneFirst(sql.type(z.object({ n: z.number() }))`
      select count(*)::int as n from score_changes where workspace_id = ${workspaceId}
    `);
    expect(recorded).to.equal(expected.length);
  });
});
