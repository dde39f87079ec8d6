// Invitations. An ADMIN invites an email with a role; the answer is the same invitation object
// whether or not someone has registered with that email, so inviting cannot be used to learn who
// has an account. A registered person becomes a member at once (the inviting ADMIN then sees them
// among the members; only that ADMIN, who typed the email, can tell); anyone else becomes one when
// they register or sign in with that email before the invitation expires.
// Every invitation carries its `joinUrl` (registration with the email filled in), the link to
// share when the service sends no mail; with SYSTEM_SMTP_URL set, inviting also mails the person
// who invited them to what, and how to join (invitationMail.ts), from a job enqueued in the same
// transaction. The mail goes to the invited address only, so it may say what the answer may not.
import { z } from 'zod';
import { findUserByEmail, publicBase, systemMailEnabled } from '../accounts/index.ts';
import { recordAudit } from '../audit/index.ts';
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import { ConflictError, NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import { type Db, sql } from '../db/pool.ts';
import type { Role } from '../http/principal.ts';
import { transactionalDb } from '../jobs/boss.ts';
import { INVITATION_MAIL_QUEUE } from './invitationMail.ts';
import { findMember } from './queries.ts';

const InvitationRow = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(['ADMIN', 'MEMBER']),
  invited_by: z.string().nullable(),
  expires_at: z.string(),
  created_at: z.string(),
});
type InvitationRow = z.infer<typeof InvitationRow>;

export type Invitation = {
  id: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  expiresAt: string;
  createdAt: string;
  joinUrl: string;
};

/** Where an invited person joins: registration with their email filled in (sign-in is a link away). */
export function joinUrl(config: Pick<Config, 'PUBLIC_URL' | 'PORT'>, email: string): string {
  return `${publicBase(config)}/auth/register?email=${encodeURIComponent(email)}`;
}

function toInvitation(config: Config, row: InvitationRow): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invitedBy: row.invited_by,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    joinUrl: joinUrl(config, row.email),
  };
}

const columns = sql.fragment`id, email, role, invited_by, expires_at, created_at`;

/** Creates the pending invitation, or renews the one already pending for this email. */
async function upsertInvitation(
  db: Db,
  input: { workspaceId: string; email: string; role: Role; invitedBy: string | null; expiryMs: number },
) {
  return db.one(sql.type(InvitationRow)`
    insert into invitations (id, workspace_id, email, role, invited_by, expires_at)
    values (${newId('invitation')}, ${input.workspaceId}, ${input.email}, ${input.role}, ${input.invitedBy},
            now() + ${input.expiryMs} * interval '1 millisecond')
    on conflict (workspace_id, email) where accepted_at is null
    do update set role = excluded.role, invited_by = excluded.invited_by, expires_at = excluded.expires_at,
      created_at = now()
    returning ${columns}
  `);
}

/**
 * Turns the email's open invitations into memberships (a membership it already has is kept as it
 * is). `workspaceId` limits it to one workspace. Expired invitations stay pending until revoked.
 */
async function acceptOpenInvitations(db: Db, user: { id: string; email: string }, workspaceId?: string) {
  const onlyWorkspace = workspaceId ? sql.fragment`and workspace_id = ${workspaceId}` : sql.fragment``;
  await db.transaction(async (tx) => {
    const joined = await tx.any(sql.type(Joined)`
    with accepted as (
      update invitations set accepted_at = now()
      where email = ${user.email} and accepted_at is null and expires_at > now() ${onlyWorkspace}
      returning workspace_id, role
    )
    insert into memberships (workspace_id, user_id, role)
    select workspace_id, ${user.id}, role from accepted
    on conflict (workspace_id, user_id) do nothing
    returning workspace_id, role
  `);
    // Joining at sign-in or registration is the person's own act; an invitation of someone already
    // registered (one workspace) adds them at once: that is the inviting ADMIN's act.
    const actor = workspaceId ? undefined : ({ kind: 'user', userId: user.id } as const);
    for (const { workspace_id: inWorkspace, role } of joined) {
      const after = { userId: user.id, email: user.email, role };
      await recordAudit(tx, {
        workspaceId: inWorkspace,
        action: 'member.joined',
        targetId: user.id,
        after,
        actor,
      });
    }
  });
}

const Joined = z.object({ workspace_id: z.string(), role: z.enum(['ADMIN', 'MEMBER']) });

/** At registration and sign-in: the person joins every workspace that invited their email. */
export async function acceptInvitations(db: Db, user: { id: string; email: string }): Promise<void> {
  await acceptOpenInvitations(db, user);
}

export async function inviteMember(
  app: Pick<AppContext, 'db' | 'boss' | 'config'>,
  input: { workspaceId: string; email: string; role: Role; invitedBy: string | null },
): Promise<Invitation & { emailed: boolean }> {
  const emailed = systemMailEnabled(app.config);
  return app.db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, input.email);
    if (user && (await findMember(tx, input.workspaceId, user.id))) {
      // Only a member of this workspace, whom the ADMIN can list anyway, is told apart.
      throw new ConflictError('This person is already a member of the workspace.', 'already-member');
    }
    const invitation = await upsertInvitation(tx, { ...input, expiryMs: app.config.INVITATION_EXPIRY_MS });
    const { workspaceId } = input;
    const after = { email: invitation.email, role: invitation.role, expiresAt: invitation.expires_at };
    await recordAudit(tx, { workspaceId, action: 'member.invited', targetId: invitation.id, after });
    if (user) await acceptOpenInvitations(tx, user, input.workspaceId);
    if (emailed) {
      const payload = { workspaceId: input.workspaceId, invitationId: invitation.id };
      await app.boss.send(INVITATION_MAIL_QUEUE, payload, { db: transactionalDb(tx) });
    }
    return { ...toInvitation(app.config, invitation), emailed };
  });
}

export async function listInvitations(
  { db, config }: Pick<AppContext, 'db' | 'config'>,
  workspaceId: string,
): Promise<Invitation[]> {
  const rows = await db.any(sql.type(InvitationRow)`
    select ${columns} from invitations
    where workspace_id = ${workspaceId} and accepted_at is null
    order by created_at, id
  `);
  return rows.map((row) => toInvitation(config, row));
}

export async function revokeInvitation(db: Db, workspaceId: string, invitationId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx.maybeOne(sql.type(InvitationRow)`
      delete from invitations
      where workspace_id = ${workspaceId} and id = ${invitationId} and accepted_at is null
      returning ${columns}
    `);
    if (!deleted) throw new NotFoundError('Invitation');
    const before = { email: deleted.email, role: deleted.role, expiresAt: deleted.expires_at };
    await recordAudit(tx, { workspaceId, action: 'invitation.revoked', targetId: invitationId, before });
  });
}
