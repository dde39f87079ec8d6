// What the forms pages read beyond the API's service: submissions per form over a window (one index
// range count per form: form_submissions_form_idx), and a keyset page of a form's submissions with
// the contact's email beside each (one statement, no per-row query).
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { SubmissionRow } from './queries.ts';

const CountRow = z.object({ form_id: z.string(), submissions: z.number().int() });

/** Submissions per form since `days` ago, for these forms of the workspace. */
export async function recentSubmissionCounts(db: Db, workspaceId: string, formIds: string[], days: number) {
  if (formIds.length === 0) return new Map<string, number>();
  const rows = await db.any(sql.type(CountRow)`
    select f.id as form_id,
      (select count(*) from form_submissions s
       where s.workspace_id = ${workspaceId} and s.form_id = f.id
         and s.created_at > now() - ${days} * interval '1 day')::int as submissions
    from unnest(${sql.array(formIds, 'text')}) as f (id)
  `);
  return new Map(rows.map((row) => [row.form_id, row.submissions]));
}

export const SubmissionListRow = SubmissionRow.extend({ contact_email: z.string().nullable() });
export type SubmissionListRow = z.infer<typeof SubmissionListRow>;

/** Newest first, after the (created_at, id) position of the last row shown; `limit` rows at most. */
export async function submissionPageOf(
  db: Db,
  workspaceId: string,
  formId: string,
  after: readonly [string, string] | null,
  limit: number,
) {
  const position = after
    ? sql.fragment`and (s.created_at, s.id) < (${after[0]}::timestamptz, ${after[1]})`
    : sql.fragment``;
  return db.any(sql.type(SubmissionListRow)`
    select s.id, s.workspace_id, s.form_id, s.contact_id, s.fields, s.confirmation, s.confirmed_at,
      s.created_at, c.email as contact_email
    from form_submissions s
    left join contacts c on c.workspace_id = s.workspace_id and c.id = s.contact_id
    where s.workspace_id = ${workspaceId} and s.form_id = ${formId} ${position}
    order by s.created_at desc, s.id desc
    limit ${limit}
  `);
}
