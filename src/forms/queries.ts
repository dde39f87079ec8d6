// SQL for forms and their submissions. Every query filters by workspace first, but the two the
// public pages run: the hosted URL and the confirmation link carry only the (unguessable) ids.
import { z } from 'zod';
import { type PageWindow, selectPage } from '../db/paginate.ts';
import { type Db, sql } from '../db/pool.ts';
import { FormField } from './schemas.ts';

export const FormRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  fields: z.array(FormField),
  success_message: z.string().nullable(),
  redirect_url: z.string().nullable(),
  double_opt_in: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type FormRow = z.infer<typeof FormRow>;

const columns = sql.fragment`id, workspace_id, name, fields, success_message, redirect_url, double_opt_in, created_at, updated_at`;

export type FormValues = {
  name: string;
  fields: FormField[];
  successMessage: string | null;
  redirectUrl: string | null;
  doubleOptIn: boolean;
};

export async function insertForm(
  db: Db,
  workspaceId: string,
  id: string,
  form: FormValues,
): Promise<FormRow> {
  return db.one(sql.type(FormRow)`
    insert into forms (id, workspace_id, name, fields, success_message, redirect_url, double_opt_in)
    values (${id}, ${workspaceId}, ${form.name}, ${sql.jsonb(form.fields as never)}, ${form.successMessage},
            ${form.redirectUrl}, ${form.doubleOptIn})
    returning ${columns}
  `);
}

export async function updateForm(
  db: Db,
  workspaceId: string,
  id: string,
  form: FormValues,
): Promise<FormRow | null> {
  return db.maybeOne(sql.type(FormRow)`
    update forms set name = ${form.name}, fields = ${sql.jsonb(form.fields as never)},
      success_message = ${form.successMessage}, redirect_url = ${form.redirectUrl},
      double_opt_in = ${form.doubleOptIn}, updated_at = now()
    where workspace_id = ${workspaceId} and id = ${id}
    returning ${columns}
  `);
}

export async function findForm(db: Db, workspaceId: string, id: string, options: { lock?: boolean } = {}) {
  return db.maybeOne(sql.type(FormRow)`
    select ${columns} from forms where workspace_id = ${workspaceId} and id = ${id}
    ${options.lock ? sql.fragment`for update` : sql.fragment``}
  `);
}

/** The hosted page's lookup: the URL names only the form. */
export async function findFormById(db: Db, id: string): Promise<FormRow | null> {
  return db.maybeOne(sql.type(FormRow)`select ${columns} from forms where id = ${id}`);
}

export async function listForms(db: Db, workspaceId: string) {
  return db.any(sql.type(FormRow)`
    select ${columns} from forms where workspace_id = ${workspaceId} order by created_at desc, id desc
  `);
}

export async function deleteForm(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const result = await db.query(sql.typeAlias('void')`
    delete from forms where workspace_id = ${workspaceId} and id = ${id}
  `);
  return result.rowCount === 1;
}

export const SubmissionRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  form_id: z.string(),
  contact_id: z.string().nullable(),
  fields: z.record(z.string(), z.union([z.string(), z.boolean()])),
  confirmation: z.enum(['none', 'pending', 'confirmed']),
  confirmed_at: z.string().nullable(),
  created_at: z.string(),
});
export type SubmissionRow = z.infer<typeof SubmissionRow>;

const submissionColumns = sql.fragment`id, workspace_id, form_id, contact_id, fields, confirmation, confirmed_at, created_at`;

export type Confirmation = SubmissionRow['confirmation'];

export async function insertSubmission(
  db: Db,
  input: {
    id: string;
    workspaceId: string;
    formId: string;
    contactId: string;
    fields: Record<string, string | boolean>;
    confirmation: Confirmation;
    confirmedAt: string | null;
    /** Its confirmation email is sent now (the limits count it). */
    confirmationSent: boolean;
  },
): Promise<SubmissionRow> {
  return db.one(sql.type(SubmissionRow)`
    insert into form_submissions (id, workspace_id, form_id, contact_id, fields, confirmation, confirmed_at,
      confirmation_sent_at)
    values (${input.id}, ${input.workspaceId}, ${input.formId}, ${input.contactId},
            ${sql.jsonb(input.fields as never)}, ${input.confirmation}, ${input.confirmedAt},
            ${input.confirmationSent ? sql.fragment`now()` : null})
    returning ${submissionColumns}
  `);
}

/**
 * Serialises the confirmation decisions of one address (a transaction-scoped advisory lock), so
 * concurrent submissions cannot each find no confirmation sent and all send one.
 */
export async function lockAddressConfirmations(db: Db, workspaceId: string, email: string) {
  await db.query(sql.unsafe`
    select pg_advisory_xact_lock(hashtextextended(${`form-confirmations:${workspaceId}:${email}`}, 0))
  `);
}

const ConfirmationHistory = z.object({
  /** When the address last confirmed this form; null if it never has. */
  confirmed_at: z.string().nullable(),
  /** A confirmation of this form, still pending, was sent within the window. */
  pending_sent: z.boolean(),
  /** Confirmation emails sent to the address within the window, across the workspace's forms. */
  sent_to_address: z.number().int(),
});

export async function findConfirmationHistory(
  db: Db,
  workspaceId: string,
  formId: string,
  contactId: string,
  windowMs: number,
) {
  const since = sql.fragment`now() - ${windowMs} * interval '1 millisecond'`;
  return db.one(sql.type(ConfirmationHistory)`
    select
      (select max(confirmed_at) from form_submissions
       where workspace_id = ${workspaceId} and contact_id = ${contactId} and form_id = ${formId}
         and confirmation = 'confirmed') as confirmed_at,
      exists (select 1 from form_submissions
       where workspace_id = ${workspaceId} and contact_id = ${contactId} and form_id = ${formId}
         and confirmation = 'pending' and confirmation_sent_at > ${since}) as pending_sent,
      (select count(*) from form_submissions
       where workspace_id = ${workspaceId} and contact_id = ${contactId}
         and confirmation_sent_at > ${since})::int as sent_to_address
  `);
}

export async function listSubmissionPage(db: Db, workspaceId: string, formId: string, window: PageWindow) {
  return selectPage(
    db,
    SubmissionRow,
    {
      columns: submissionColumns,
      from: sql.fragment`form_submissions`,
      where: sql.fragment`workspace_id = ${workspaceId} and form_id = ${formId}`,
      orderBy: sql.fragment`created_at desc, id desc`,
    },
    window,
  );
}

/** The confirmation link's lookup (it names only the submission), locked for the confirmation. */
export async function findSubmissionById(db: Db, id: string): Promise<SubmissionRow | null> {
  return db.maybeOne(sql.type(SubmissionRow)`
    select ${submissionColumns} from form_submissions where id = ${id} for update
  `);
}

/** Confirms every pending submission of the form by the contact: one link answers for them all. */
export async function markSubmissionsConfirmed(
  db: Db,
  workspaceId: string,
  formId: string,
  contactId: string,
): Promise<void> {
  await db.query(sql.typeAlias('void')`
    update form_submissions set confirmation = 'confirmed', confirmed_at = now()
    where workspace_id = ${workspaceId} and contact_id = ${contactId} and form_id = ${formId}
      and confirmation = 'pending'
  `);
}
