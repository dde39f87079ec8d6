// The segments' counter tables (sql/0046, sql/0057), a row per segment and database backend,
// folded by the worker (src/db/counters.ts).
import type { CounterTable } from '../db/counters.ts';

export const segmentCounters: readonly CounterTable[] = [
  { table: 'segment_member_counts', keys: ['workspace_id', 'segment_id'], counts: ['members'] },
  {
    table: 'segment_daily_changes',
    keys: ['workspace_id', 'segment_id', 'day'],
    counts: ['entered', 'exited'],
  },
];
