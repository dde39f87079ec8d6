// The invitation mail, sent by the worker after the invitation committed: who invited the person
// to which workspace, as what, and how to join. It goes to the invited address alone, so it may
// say what the API's answer may not: that the address already has an account (and is a member).
// A revoked invitation sends nothing. Names are the users' and workspaces' own text: the HTML part
// escapes them (systemMail.ts) and the subject keeps to one line.
import { z } from 'zod';
import { publicBase, SYSTEM_MAIL_QUEUE, sendSystemMail } from '../accounts/index.ts';
import type { AppContext } from '../core/context.ts';
import { type Db, sql } from '../db/pool.ts';
import type { JobDefinition } from '../jobs/definition.ts';

export const INVITATION_MAIL_QUEUE = 'workspaces.invitationMail';

const Payload = z.object({ workspaceId: z.string(), invitationId: z.string() });

const MailRow = z.object({
  email: z.string(),
  role: z.enum(['ADMIN', 'MEMBER']),
  expires_at: z.string(),
  accepted: z.boolean(),
  workspace_name: z.string(),
  inviter_name: z.string().nullable(),
  inviter_email: z.string().nullable(),
});
type MailRow = z.infer<typeof MailRow>;

async function findInvitationForMail(db: Db, workspaceId: string, invitationId: string) {
  return db.maybeOne(sql.type(MailRow)`
    select i.email, i.role, i.expires_at, i.accepted_at is not null as accepted,
           w.name as workspace_name, u.name as inviter_name, u.email as inviter_email
    from invitations i
    join workspaces w on w.id = i.workspace_id
    left join users u on u.id = i.invited_by
    where i.workspace_id = ${workspaceId} and i.id = ${invitationId}
  `);
}

const minuteUtc = (iso: string) => `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function invitationMail(base: string, row: MailRow) {
  const email = encodeURIComponent(row.email);
  const who = row.inviter_name ? `${row.inviter_name} (${row.inviter_email})` : 'An administrator';
  const as = row.role === 'ADMIN' ? 'an administrator' : 'a member';
  const invited = `${who} invited you to the workspace “${row.workspace_name}” on Switchboard, as ${as}.`;
  if (row.accepted)
    return {
      to: row.email,
      subject: `You joined ${row.workspace_name} on Switchboard`,
      paragraphs: [
        'Hello,',
        invited,
        `You already have an account with ${row.email}, so you are a member now: sign in to see the workspace.`,
      ],
      action: { label: 'Sign in', url: `${base}/auth/signin?email=${email}` },
    };
  return {
    to: row.email,
    subject: `${row.inviter_name ?? 'Someone'} invited you to ${row.workspace_name} on Switchboard`,
    paragraphs: [
      'Hello,',
      invited,
      `To join, register with this address, ${row.email}, before ${minuteUtc(row.expires_at)}; if you already have an account with it, sign in instead. Either way you join the workspace as you do.`,
      'Not expecting this? Ignore the mail: nothing happens without you.',
    ],
    action: { label: `Join ${row.workspace_name}`, url: `${base}/auth/register?email=${email}` },
  };
}

export const invitationMailJob: JobDefinition<z.infer<typeof Payload>> = {
  name: INVITATION_MAIL_QUEUE,
  ...SYSTEM_MAIL_QUEUE,
  handler: async (context: AppContext, jobs) => {
    for (const job of jobs) {
      const { workspaceId, invitationId } = Payload.parse(job.data);
      const row = await findInvitationForMail(context.db, workspaceId, invitationId);
      if (row) await sendSystemMail(context.config, invitationMail(publicBase(context.config), row));
    }
  },
};
