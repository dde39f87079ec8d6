// The worker's folding of every feature's counter tables (each feature's `counters`; why they need
// it: src/db/counters.ts). Every ten minutes: a backend's rows are folded once it has gone, so a
// key keeps about as many rows as there are live backends that wrote it, whatever the
// installation's age. Not a setting: how often is no operator's concern, only that it happens.
import type { AppContext } from '../core/context.ts';
import { type CounterTable, foldCounters } from '../db/counters.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { FEATURES } from './features.ts';

const FOLD_CRON = '*/10 * * * *';

export function counterTables(): CounterTable[] {
  return FEATURES.flatMap((feature) => [...(feature.counters ?? [])]);
}

/** Folds each table in its own statement; returns the keys folded per table (those with any). */
export async function foldAllCounters(context: AppContext): Promise<Record<string, number>> {
  const folded: Record<string, number> = {};
  for (const counter of counterTables()) {
    const keys = await foldCounters(context.db, counter);
    if (keys > 0) folded[counter.table] = keys;
  }
  return folded;
}

export const foldCountersJob: JobDefinition = {
  name: 'counters.fold',
  // No retries: the next run folds what this one did not (a segment deleted meanwhile fails its
  // foreign key, and its rows are then gone anyway).
  queue: { retryLimit: 0, expireInSeconds: 600, notify: true },
  schedule: { cron: FOLD_CRON },
  handler: async (context: AppContext) => {
    const folded = await foldAllCounters(context);
    if (Object.keys(folded).length > 0) context.log.debug({ folded }, 'counters folded');
  },
};
