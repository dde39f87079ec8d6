// Forms: made, read, changed and deleted through the API; the hosted page is their public face.
import { recordAudit } from '../audit/index.ts';
import type { Config } from '../config.ts';
import { NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import { pageWindow } from '../db/paginate.ts';
import type { Db } from '../db/pool.ts';
import {
  deleteForm,
  type FormRow,
  type FormValues,
  findForm,
  insertForm,
  listForms,
  listSubmissionPage,
  type SubmissionRow,
  updateForm,
} from './queries.ts';
import type { CreateFormBody, UpdateFormBody } from './schemas.ts';

/** The service's public address (PUBLIC_URL, else the address the web process serves on). */
export function publicBase(config: Config): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
}

export function toForm(config: Config, row: FormRow) {
  return {
    id: row.id,
    name: row.name,
    fields: row.fields,
    successMessage: row.success_message,
    redirectUrl: row.redirect_url,
    doubleOptIn: row.double_opt_in,
    hostedUrl: `${publicBase(config)}/f/${row.id}`,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toSubmission(row: SubmissionRow) {
  return {
    id: row.id,
    formId: row.form_id,
    contactId: row.contact_id,
    fields: row.fields,
    confirmation: row.confirmation,
    confirmedAt: row.confirmed_at,
    createdAt: row.created_at,
  };
}

export async function createForm(db: Db, config: Config, workspaceId: string, body: CreateFormBody) {
  const values: FormValues = {
    name: body.name,
    fields: body.fields,
    successMessage: body.successMessage ?? null,
    redirectUrl: body.redirectUrl ?? null,
    doubleOptIn: body.doubleOptIn,
  };
  return db.transaction(async (tx) => {
    const form = toForm(config, await insertForm(tx, workspaceId, newId('form'), values));
    await recordAudit(tx, { workspaceId, action: 'form.created', targetId: form.id, after: values });
    return form;
  });
}

export async function requireForm(
  db: Db,
  workspaceId: string,
  formId: string,
  options: { lock?: boolean } = {},
) {
  const row = await findForm(db, workspaceId, formId, options);
  if (!row) throw new NotFoundError('Form');
  return row;
}

export async function getForm(db: Db, config: Config, workspaceId: string, formId: string) {
  return toForm(config, await requireForm(db, workspaceId, formId));
}

export async function listFormsOf(db: Db, config: Config, workspaceId: string) {
  return (await listForms(db, workspaceId)).map((row) => toForm(config, row));
}

export async function changeForm(
  db: Db,
  config: Config,
  workspaceId: string,
  formId: string,
  body: UpdateFormBody,
) {
  return db.transaction(async (tx) => {
    const current = await requireForm(tx, workspaceId, formId, { lock: true });
    const values: FormValues = {
      name: body.name ?? current.name,
      fields: body.fields ?? current.fields,
      successMessage: body.successMessage === undefined ? current.success_message : body.successMessage,
      redirectUrl: body.redirectUrl === undefined ? current.redirect_url : body.redirectUrl,
      doubleOptIn: body.doubleOptIn ?? current.double_opt_in,
    };
    const row = await updateForm(tx, workspaceId, formId, values);
    if (!row) throw new NotFoundError('Form');
    const before = formValues(current);
    await recordAudit(tx, { workspaceId, action: 'form.updated', targetId: formId, before, after: values });
    return toForm(config, row);
  });
}

export async function removeForm(db: Db, workspaceId: string, formId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await requireForm(tx, workspaceId, formId, { lock: true });
    await deleteForm(tx, workspaceId, formId);
    await recordAudit(tx, {
      workspaceId,
      action: 'form.deleted',
      targetId: formId,
      before: formValues(current),
    });
  });
}

/** A form's definition as the audit log shows it. */
function formValues(row: NonNullable<Awaited<ReturnType<typeof findForm>>>): FormValues {
  return {
    name: row.name,
    fields: row.fields,
    successMessage: row.success_message,
    redirectUrl: row.redirect_url,
    doubleOptIn: row.double_opt_in,
  };
}

export async function listSubmissions(
  db: Db,
  workspaceId: string,
  formId: string,
  page: { page: number; limit: number },
) {
  await requireForm(db, workspaceId, formId);
  const { rows, total } = await listSubmissionPage(db, workspaceId, formId, pageWindow(page));
  return { data: rows.map(toSubmission), page: page.page, limit: page.limit, total };
}
