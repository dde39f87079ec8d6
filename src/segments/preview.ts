// What an unsaved rule would match, before anything is saved: the segment builder shows it as the
// rule is edited. The count is exact up to PREVIEW_COUNT_CAP and "more than" that past it: never a
// wrong number, and never a walk of a million contacts when ten thousand already answer the question.
import type { Db } from '../db/pool.ts';
import { previewRule } from './queries.ts';
import type { Rule } from './rules.ts';

export const PREVIEW_COUNT_CAP = 10_000;
export const PREVIEW_SAMPLE_SIZE = 10;

export async function previewSegment(db: Db, workspaceId: string, rules: Rule) {
  const row = await previewRule(db, workspaceId, rules, PREVIEW_COUNT_CAP, PREVIEW_SAMPLE_SIZE);
  const exact = row.count <= PREVIEW_COUNT_CAP;
  return { count: exact ? row.count : PREVIEW_COUNT_CAP, exact, sample: row.sample };
}
