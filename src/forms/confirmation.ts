// Double opt-in. The confirmation link is `/f/confirm/<submission id>.<mac>`, the MAC an
// HMAC-SHA256 (first 16 bytes) keyed from the session secret, so a forged link costs no query.
// Opening the link changes nothing (mail scanners prefetch links): the page's button confirms.
// Confirming subscribes the contact to email, whatever they had chosen before: they proved they
// own the address and asked for it.
//
// Anyone can type anyone's address into a public form, so the confirmations an address gets are
// limited (consentStep): one per form while it is pending within FORM_CONFIRMATION_WINDOW_MS,
// none while the address has confirmed the form and is still subscribed, and at most
// FORM_CONFIRMATIONS_PER_ADDRESS across the workspace's forms in the window. The submission is
// stored and answered the same way whatever the limits decide, so the answer reveals nothing.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import type { Tx } from '../db/pool.ts';
import { sessionSecret } from '../http/session.ts';
import { createMessage, enqueueDelivery, isSubscribed, setSubscription } from '../messages/index.ts';
import {
  type Confirmation,
  type FormRow,
  findConfirmationHistory,
  findSubmissionById,
  markSubmissionsConfirmed,
  type SubmissionRow,
} from './queries.ts';
import { publicBase } from './service.ts';

const MAC_BYTES = 16;
const SUBMISSION_ID = /^fsub_[0-9A-Z]{26}$/;
const keys = new WeakMap<Config, Buffer>();

function key(config: Config): Buffer {
  let found = keys.get(config);
  if (!found) {
    found = createHmac('sha256', sessionSecret(config)).update('switchboard/form-confirmation').digest();
    keys.set(config, found);
  }
  return found;
}

function mac(config: Config, submissionId: string): Buffer {
  return createHmac('sha256', key(config)).update(`c.${submissionId}`).digest().subarray(0, MAC_BYTES);
}

export function confirmationToken(config: Config, submissionId: string): string {
  return `${submissionId}.${mac(config, submissionId).toString('base64url')}`;
}

/** The submission a genuine token names; null for anything forged or malformed. */
export function verifyConfirmationToken(config: Config, token: string): string | null {
  const [submissionId, given, ...rest] = token.split('.');
  if (rest.length > 0 || !SUBMISSION_ID.test(submissionId ?? '')) return null;
  const got = Buffer.from(given ?? '', 'base64url');
  const want = mac(config, submissionId);
  return got.length === want.length && timingSafeEqual(got, want) ? submissionId : null;
}

export function confirmationUrl(config: Config, submissionId: string): string {
  return `${publicBase(config)}/f/confirm/${confirmationToken(config, submissionId)}`;
}

export type ConsentStep = { confirmation: Confirmation; confirmedAt: string | null; send: boolean };

/**
 * What a double opt-in submission by this contact needs: confirmed at once when the address has
 * confirmed the form before and is still subscribed; else pending, with a confirmation email only
 * when the limits allow one. The caller holds the address's lock (lockAddressConfirmations) until
 * its transaction ends, so concurrent submissions cannot each find none sent and all send one.
 */
export async function consentStep(
  app: AppContext,
  tx: Tx,
  form: FormRow,
  contactId: string,
): Promise<ConsentStep> {
  const { config } = app;
  const history = await findConfirmationHistory(
    tx,
    form.workspace_id,
    form.id,
    contactId,
    config.FORM_CONFIRMATION_WINDOW_MS,
  );
  // Someone who confirmed and then unsubscribed asks again through the form: they get a new link.
  if (history.confirmed_at && (await isSubscribed(tx, form.workspace_id, contactId, 'email'))) {
    return { confirmation: 'confirmed', confirmedAt: history.confirmed_at, send: false };
  }
  const send = !history.pending_sent && history.sent_to_address < config.FORM_CONFIRMATIONS_PER_ADDRESS;
  return { confirmation: 'pending', confirmedAt: null, send };
}

/**
 * The confirmation email, made and enqueued in the submission's transaction as a transactional
 * message (it reaches a contact not yet subscribed, so it ignores the pending opt-out).
 */
export async function sendConfirmation(app: AppContext, tx: Tx, form: FormRow, submission: SubmissionRow) {
  const { id } = await createMessage(tx, {
    workspaceId: form.workspace_id,
    contactId: submission.contact_id!,
    channel: 'email',
    template: {
      subject: 'Please confirm your subscription',
      html:
        '<p>Please confirm that you asked to subscribe through “{{ form_name }}”.</p>' +
        '<p><a href="{{ confirm_url }}">Confirm my subscription</a></p>' +
        '<p>If you did not ask for this, ignore this email: nothing will be sent to you.</p>',
      text:
        'Please confirm that you asked to subscribe through "{{ form_name }}":\n{{ confirm_url }}\n\n' +
        'If you did not ask for this, ignore this email: nothing will be sent to you.',
    },
    data: { confirm_url: confirmationUrl(app.config, submission.id), form_name: form.name },
    ignoreUnsubscribe: true,
    // It asks for consent: no pixel, and its link goes straight to us, not through click tracking.
    untracked: true,
  });
  await enqueueDelivery(app, tx, id);
}

/**
 * Confirms a pending submission, and the contact's other pending submissions of the form (the
 * limits may have sent one link for several); idempotent. False when the submission is gone.
 */
export async function confirmSubmission(tx: Tx, submissionId: string): Promise<boolean> {
  const submission = await findSubmissionById(tx, submissionId);
  if (!submission?.contact_id) return false;
  if (submission.confirmation !== 'pending') return true;
  await markSubmissionsConfirmed(tx, submission.workspace_id, submission.form_id, submission.contact_id);
  await setSubscription(tx, submission.workspace_id, submission.contact_id, {
    channel: 'email',
    status: 'subscribed',
    reason: null,
    messageId: null,
  });
  return true;
}
