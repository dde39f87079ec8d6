// Identity tokens: a browser is anonymous unless the customer's backend vouches for who it is,
// as Intercom's and Customer.io's identity verification do. The backend computes
// hex(HMAC-SHA256(identity secret, value)) over the contact's email or id, exactly as the browser
// will send it, and hands the result to the page. Without the secret no page can act as somebody
// else. The secret is sealed at rest (src/secrets) and bound to its workspace.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { recordAudit } from '../audit/index.ts';
import { ForbiddenError, ValidationError } from '../core/errors.ts';
import type { Db } from '../db/pool.ts';
import { isEmailAddress, normaliseEmailText } from '../http/email.ts';
import { decryptSecret, encryptSecret } from '../secrets/index.ts';
import { findIdentitySecret, insertIdentitySecretIfAbsent, replaceIdentitySecret } from './queries.ts';

export type IdentityClaim = { email?: string; contactId?: string; identityToken?: string };

/** Who the browser is: a contact the customer's backend vouched for, or nobody in particular. */
export type Identity =
  | { kind: 'identified'; email: string; contactId?: undefined }
  | { kind: 'identified'; contactId: string; email?: undefined }
  | { kind: 'anonymous' };

export const identitySecretContext = (workspaceId: string) => `${workspaceId}:identity-secret`;
const context = identitySecretContext;

const newSecret = () => `sbid_${randomBytes(32).toString('base64url')}`;

/** The workspace's identity secret, made on first use. */
export async function readIdentitySecret(db: Db, workspaceId: string) {
  let row = await findIdentitySecret(db, workspaceId);
  if (!row) {
    await insertIdentitySecretIfAbsent(db, workspaceId, encryptSecret(newSecret(), context(workspaceId)));
    row = await findIdentitySecret(db, workspaceId);
  }
  if (!row) throw new Error(`the identity secret of ${workspaceId} vanished as it was made`);
  return { secret: decryptSecret(row.secret, context(workspaceId)), rotatedAt: row.rotated_at };
}

/** A new secret: tokens signed with the old one stop working at once. */
export async function rotateIdentitySecret(db: Db, workspaceId: string) {
  const secret = newSecret();
  return db.transaction(async (tx) => {
    const row = await replaceIdentitySecret(tx, workspaceId, encryptSecret(secret, context(workspaceId)));
    const after = { rotatedAt: row.rotated_at };
    await recordAudit(tx, { workspaceId, action: 'identitySecret.rotated', targetId: workspaceId, after });
    return { secret, rotatedAt: row.rotated_at };
  });
}

/** The token a backend gives its page for this email or contact id (for tests and the CLI). */
export function identityToken(secret: string, value: string): string {
  return createHmac('sha256', secret).update(value, 'utf8').digest('hex');
}

function sameToken(expected: string, presented: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(presented, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The email a claim names, normalised as contacts store it; a 400 when it is none. */
function claimedEmail(raw: string): string {
  const email = normaliseEmailText(raw);
  if (!isEmailAddress(email))
    throw new ValidationError([{ path: 'body.email', message: 'must be an email address' }]);
  return email;
}

/**
 * Checks a browser's claim to be a contact. No email or contact id: anonymous. A claim needs the
 * token signed over the email (when given; as sent or as stored: trimmed, lower-case) or else the
 * contact id. A missing token is a 400 naming the field, a wrong one a 403; either way nothing is
 * done as that contact. An identified email comes back normalised.
 */
export async function verifyIdentity(db: Db, workspaceId: string, claim: IdentityClaim): Promise<Identity> {
  const value = claim.email ?? claim.contactId;
  if (value === undefined) return { kind: 'anonymous' };
  const email = claim.email === undefined ? undefined : claimedEmail(claim.email);
  if (!claim.identityToken) {
    throw new ValidationError([
      {
        path: 'body.identityToken',
        message:
          'is required with email or contactId: the HMAC your backend computes with the identity secret',
      },
    ]);
  }
  const stored = await findIdentitySecret(db, workspaceId);
  const secret = stored ? decryptSecret(stored.secret, context(workspaceId)) : null;
  const signed = [...new Set([value, email ?? value])];
  const presented = claim.identityToken.toLowerCase();
  if (secret === null || !signed.some((text) => sameToken(identityToken(secret, text), presented))) {
    throw new ForbiddenError(
      'The identity token does not match: compute it on your backend as the hex HMAC-SHA256 of the ' +
        'email (or contact id) with the workspace identity secret.',
      'identity-token-invalid',
    );
  }
  return email !== undefined ? { kind: 'identified', email } : { kind: 'identified', contactId: value };
}
