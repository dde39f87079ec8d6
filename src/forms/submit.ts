// A submission, in one transaction: the contact found by email (or made), the submission row, the
// stored event `form.submitted` through the ingest pipeline (segments, triggers, scores), the
// webhook `form.submitted`, and with double opt-in the confirmation email. All of it commits or
// none does; invalid input never gets here (values.ts).
//
// Anyone can type any address into a public form, so a submission fills in what a known contact
// lacks and never overwrites it; and without double opt-in it never resubscribes a contact that
// opted out. With double opt-in, a contact this submission made stays unsubscribed from email
// until the link is followed, and the confirmation email goes out only as far as its limits allow
// (confirmation.ts): the submission is stored and answered alike either way.
import {
  type ContactEffects,
  type ContactRow,
  createContact,
  findContactByEmail,
  patchContact,
} from '../contacts/index.ts';
import type { AppContext } from '../core/context.ts';
import { ConflictError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import type { Tx } from '../db/pool.ts';
import { runAsWorkspace } from '../db/workspaceShare.ts';
import { ingestEvents } from '../events/index.ts';
import { setSubscription } from '../messages/index.ts';
import { emit } from '../outbox/emit.ts';
import { type ConsentStep, consentStep, sendConfirmation } from './confirmation.ts';
import { type FormRow, insertSubmission, lockAddressConfirmations, type SubmissionRow } from './queries.ts';
import type { Submitted } from './values.ts';

type ContactValues = {
  email: string;
  fields: { firstName?: string; lastName?: string; phone?: string };
  attributes: Record<string, unknown>;
};

function contactValues(form: FormRow, values: Submitted): ContactValues {
  const mapped: ContactValues = { email: '', fields: {}, attributes: {} };
  for (const field of form.fields) {
    const value = values[field.key];
    if (value === undefined || !field.mapTo) continue;
    if ('attribute' in field.mapTo) mapped.attributes[field.mapTo.attribute] = value;
    else if (field.mapTo.contactField === 'email') mapped.email = String(value);
    else mapped.fields[field.mapTo.contactField] = String(value);
  }
  return mapped;
}

/** Only what the contact lacks: empty fields, absent attribute keys. */
async function fillIn(
  tx: Tx,
  effects: ContactEffects,
  contact: ContactRow,
  values: ContactValues,
): Promise<ContactRow> {
  const columns = { firstName: contact.first_name, lastName: contact.last_name, phone: contact.phone };
  const fields = Object.fromEntries(
    Object.entries(values.fields).filter(([name]) => columns[name as keyof typeof columns] === null),
  );
  const attributes = Object.fromEntries(
    Object.entries(values.attributes).filter(([name]) => !(name in contact.attributes)),
  );
  if (Object.keys(fields).length === 0 && Object.keys(attributes).length === 0) return contact;
  return patchContact(tx, effects, contact.workspace_id, contact.id, fields, attributes);
}

async function upsertContact(tx: Tx, effects: ContactEffects, workspaceId: string, values: ContactValues) {
  const known = await findContactByEmail(tx, workspaceId, values.email);
  if (known) return { contact: await fillIn(tx, effects, known, values), created: false };
  try {
    // A savepoint: a concurrent submission may make the contact first.
    const made = await tx.transaction((inner) =>
      createContact(inner, effects, workspaceId, {
        email: values.email,
        ...values.fields,
        attributes: values.attributes,
      }),
    );
    return made;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const raced = await findContactByEmail(tx, workspaceId, values.email);
    if (!raced) throw error;
    return { contact: await fillIn(tx, effects, raced, values), created: false };
  }
}

const NO_CONSENT_ASKED: ConsentStep = { confirmation: 'none', confirmedAt: null, send: false };

async function record(app: AppContext, tx: Tx, form: FormRow, values: Submitted): Promise<SubmissionRow> {
  const workspaceId = form.workspace_id;
  const mapped = contactValues(form, values);
  // Before any row lock of the contact's: every path takes this lock first, so none waits in a circle.
  if (form.double_opt_in) await lockAddressConfirmations(tx, workspaceId, mapped.email);
  const { contact, created } = await upsertContact(tx, app.effects.contacts, workspaceId, mapped);
  if (form.double_opt_in && created) {
    await setSubscription(tx, workspaceId, contact.id, {
      channel: 'email',
      status: 'unsubscribed',
      reason: 'unconfirmed',
      messageId: null,
    });
  }
  const consent = form.double_opt_in ? await consentStep(app, tx, form, contact.id) : NO_CONSENT_ASKED;
  const submission = await insertSubmission(tx, {
    id: newId('formSubmission'),
    workspaceId,
    formId: form.id,
    contactId: contact.id,
    fields: values,
    confirmation: consent.confirmation,
    confirmedAt: consent.confirmedAt,
    confirmationSent: consent.send,
  });
  const data = { formId: form.id, submissionId: submission.id, fields: values };
  await ingestEvents(
    tx,
    app.effects.contacts,
    workspaceId,
    [{ type: 'form.submitted', contactId: contact.id, metadata: data }],
    {
      source: 'api',
    },
  );
  await emit(tx, { workspaceId, type: 'form.submitted', data });
  if (consent.send) await sendConfirmation(app, tx, form, submission);
  return submission;
}

export async function acceptSubmission(
  app: AppContext,
  form: FormRow,
  values: Submitted,
): Promise<SubmissionRow> {
  return runAsWorkspace(
    form.workspace_id,
    () => app.db.transaction((tx) => record(app, tx, form, values)),
    app.config.WORKSPACE_POOL_WAIT_MS,
  );
}
