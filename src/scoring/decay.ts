// Score decay: every `every`, each non-zero lead score moves `points` towards zero (never past
// it). Runs from the scheduler; each due workspace is one transaction that records the changes
// (reason 'decay'), emits contact.score_changed and re-evaluates the segments that read scores.
import { type ContactEffects, contactsChanged } from '../contacts/index.ts';
import type { Db, Tx } from '../db/pool.ts';
import { clampScore, type RecordedChange, recordScoreChanges } from './apply.ts';
import { advanceDecayClock, findWorkspacesDueForDecay, lockDueDecay, lockNonZeroScores } from './queries.ts';

/** Contacts per statement when a decay touches a large workspace. */
const SLICE = 5_000;

export type DecayResult = { workspaceId: string; periods: number; changed: number };

function decayed(score: number, amount: number): number {
  return score > 0 ? Math.max(0, score - amount) : Math.min(0, score + amount);
}

async function decayWorkspace(
  tx: Tx,
  effects: ContactEffects,
  workspaceId: string,
): Promise<DecayResult | null> {
  const due = await lockDueDecay(tx, workspaceId);
  if (!due || due.periods < 1) return null;
  const amount = clampScore(due.decay_points * due.periods);
  const changes: RecordedChange[] = (await lockNonZeroScores(tx, workspaceId)).map((row) => ({
    contactId: row.id,
    ruleId: null,
    eventId: null,
    reason: 'decay',
    previousScore: row.lead_score,
    score: decayed(row.lead_score, amount),
  }));
  for (let start = 0; start < changes.length; start += SLICE) {
    const slice = changes.slice(start, start + SLICE);
    await recordScoreChanges(tx, workspaceId, slice);
    await contactsChanged(
      effects,
      tx,
      workspaceId,
      slice.map((change) => change.contactId),
      { score: true },
    );
  }
  await advanceDecayClock(tx, workspaceId, due.periods * due.decay_every_seconds);
  return { workspaceId, periods: due.periods, changed: changes.length };
}

/** Applies every decay that is due (or only this workspace's); safe to run twice. */
export async function runDecay(
  app: { db: Db; effects: { contacts: ContactEffects } },
  workspaceId: string | null = null,
): Promise<DecayResult[]> {
  const { db, effects } = app;
  const due = workspaceId ? [workspaceId] : await findWorkspacesDueForDecay(db);
  const results: DecayResult[] = [];
  for (const id of due) {
    const result = await db.transaction((tx) => decayWorkspace(tx, effects.contacts, id));
    if (result) results.push(result);
  }
  return results;
}
