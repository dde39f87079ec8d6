// The lead scores of an events import (src/imports/scoreQueries.ts says how): the pairs of rules
// SQL can decide, then those of cooldown rules decided in Node a page of contacts at a time, then
// one statement for every change (and one contact.score_changed per contact whose score moved).
// Contacts whose score could reach the clamp are scored event by event, as ingest scores them.
import { z } from 'zod';
import { sql, type Tx } from '../db/pool.ts';
import {
  type ActiveRuleRow,
  emitScoreChanges,
  type RecordedChange,
  SCORE_LIMIT,
  type ScoredEvent,
  scoreEvents,
  scoreRows,
  scoreWrites,
} from '../scoring/index.ts';
import { lockScores, ruleHistory } from './effectQueries.ts';
import { stagedEvents } from './eventQueries.ts';
import {
  clampedPage,
  cooldownCandidates,
  createFiredTable,
  fireInSql,
  insertPairs,
  type OrderedRule,
  setAsideClampable,
  writeFiredScores,
} from './scoreQueries.ts';

export type ScoreOptions = {
  workspaceId: string;
  /** The active rules in creation order. */
  rules: readonly ActiveRuleRow[];
  /** Whether anyone listens to contact.score_changed. */
  emit: boolean;
  pageSize: number;
};

/** A cooldown rule's pairs, decided in Node (the same walk as ingest) a page of contacts at a time. */
async function fireWithCooldown(tx: Tx, options: ScoreOptions, rule: OrderedRule) {
  // `where` was tested in SQL; the candidates carry no metadata.
  const asRule = { ...rule, where: null };
  let after = '';
  for (;;) {
    const candidates = await cooldownCandidates(tx, rule, after, options.pageSize);
    if (candidates.length === 0) return;
    after = candidates.at(-1)!.contactId;
    const contactIds = [...new Set(candidates.map((event) => event.contactId))];
    const history = await ruleHistory(tx, options.workspaceId, contactIds, [rule.id]);
    const byId = new Map(candidates.map((event) => [event.id, event]));
    const fired = scoreEvents([asRule], [...candidates], {
      scores: new Map(contactIds.map((id) => [id, 0])),
      history,
    });
    await insertPairs(
      tx,
      rule,
      fired.map((change) => byId.get(change.eventId)!),
    );
  }
}

/**
 * One change per contact, from its score before the import to its score after (docs/guides/import.md:
 * a webhook consumer wants the net move, the score history keeps every rule's step).
 */
function netChanges(changes: readonly RecordedChange[]): RecordedChange[] {
  const net = new Map<string, RecordedChange>();
  for (const change of changes) {
    const first = net.get(change.contactId);
    net.set(change.contactId, {
      ...change,
      ruleId: null,
      eventId: null,
      previousScore: first ? first.previousScore : change.previousScore,
    });
  }
  return [...net.values()].filter((change) => change.score !== change.previousScore);
}

/** The per-event path (src/scoring/apply.ts) for one page of contacts. */
async function scoreEventByEvent(tx: Tx, options: ScoreOptions, contactIds: string[]) {
  const { workspaceId, rules } = options;
  const types = [...new Set(rules.map((rule) => rule.event_type))];
  const events: ScoredEvent[] = await stagedEvents(tx, contactIds, types);
  const scores = await lockScores(tx, workspaceId, contactIds);
  const limited = rules.filter((rule) => !rule.repeatable || rule.cooldown_seconds !== null);
  const history = await ruleHistory(
    tx,
    workspaceId,
    contactIds,
    limited.map((rule) => rule.id),
  );
  const changes = scoreEvents(rules, events, { scores, history }).map((change) => ({
    ...change,
    reason: 'rule' as const,
  }));
  if (changes.length === 0) return 0;
  if (options.emit) await emitScoreChanges(tx, workspaceId, netChanges(changes));
  const { rows, scores: final } = scoreRows(changes);
  await tx.query(sql.type(z.object({ n: z.number() }))`
    with ${scoreWrites(workspaceId, rows, final)} select count(*)::int as n from scored
  `);
  return changes.length;
}

/** Scores the contacts set aside by scoreImport (`clamped` of them) event by event; they exist by now. */
export async function scoreClamped(tx: Tx, options: ScoreOptions): Promise<number> {
  let changes = 0;
  let after = '';
  for (;;) {
    const contactIds = [...(await clampedPage(tx, after, options.pageSize))];
    if (contactIds.length === 0) return changes;
    after = contactIds.at(-1)!;
    changes += await scoreEventByEvent(tx, options, contactIds);
  }
}

/**
 * Applies the rules to the imported events, but for contacts whose score could reach the clamp:
 * returns the number of score changes and of contacts set aside for scoreClamped.
 */
export async function scoreImport(
  tx: Tx,
  options: ScoreOptions,
): Promise<{ changes: number; clamped: number }> {
  if (options.rules.length === 0) return { changes: 0, clamped: 0 };
  await createFiredTable(tx);
  const ordered = options.rules.map((rule, position) => ({ ...rule, position }));
  for (const rule of ordered) {
    if (rule.cooldown_seconds === null) await fireInSql(tx, options.workspaceId, rule);
    else await fireWithCooldown(tx, options, rule);
  }
  const clamped = await setAsideClampable(tx, options.workspaceId, SCORE_LIMIT);
  return { changes: await writeFiredScores(tx, options.workspaceId, options.emit), clamped };
}
