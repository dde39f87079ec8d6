// A broadcast's audience before it is sent (a dry run): who among the segment's members its first
// send step will reach, and why the others will not. Nothing is written. The rules are the
// delivery path's own, called rather than copied: the channel's `unreachable` (no address), the
// opt-outs read by findSuppressions (hard bounce, complaint, soft bounces, unsubscribed from all or
// from the channel, in that order, as messages/deliver.ts applies them), and the pacing that
// delays a send (frequency cap, quiet hours: deferred, not dropped). Members are read a page at a
// time in set-based statements, never one query per contact.
import { z } from 'zod';
import { channelNamed, type SendContext } from '../channels/index.ts';
import { ConflictError } from '../core/errors.ts';
import { type Db, sql } from '../db/pool.ts';
import {
  ADDRESS_REFUSALS,
  type OptOutReason,
  reachColumns,
  suppressionReason,
  UNSUBSCRIBED_FROM_ALL,
} from '../messages/index.ts';
import { allSteps } from './flow.ts';
import { cappedContacts, type Pacing, quietUntil, readPacing, zoneOf } from './pacing.ts';
import type { CampaignTrigger, SendStep } from './schemas.ts';
import { requireCampaign } from './service.ts';

/** Why a member will not be sent the message, in the order delivery checks them. */
export const EXCLUSION_REASONS = [
  'no_address',
  'hard_bounce',
  'complaint',
  'soft_bounces',
  'unsubscribed_all',
  'unsubscribed_channel',
] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];
/** Why a member will be sent it later than the broadcast starts. */
export const DEFERRAL_REASONS = ['frequency_cap', 'quiet_hours'] as const;
type DeferralReason = (typeof DEFERRAL_REASONS)[number];

const SAMPLE_SIZE = 5;
const PAGE_SIZE = 5_000;

type Member = { id: string; email: string | null };
type Tally = { count: number; description: string | null; sample: Member[] };

function tally(): Tally {
  return { count: 0, description: null, sample: [] };
}

function add(into: Tally, member: Member, description: string | null = null) {
  into.count += 1;
  into.description ??= description;
  if (into.sample.length < SAMPLE_SIZE) into.sample.push(member);
}

/** The reason code of a suppression text from findSuppressions. */
function optOutReason(text: string): ExclusionReason {
  const refusal = Object.entries(ADDRESS_REFUSALS).find(([, said]) => said === text);
  if (refusal) return refusal[0] as Extract<OptOutReason, ExclusionReason>;
  return text === UNSUBSCRIBED_FROM_ALL ? 'unsubscribed_all' : 'unsubscribed_channel';
}

/** The step a broadcast's audience is counted for: the first send step in flow order. */
function firstSendStep(steps: readonly { step: unknown }[]): SendStep | undefined {
  return steps.map(({ step }) => step as SendStep).find((step) => step.type === 'send');
}

type Audit = {
  db: Db;
  workspaceId: string;
  channel: string;
  pacing: Pacing;
  at: Date;
  excluded: Record<ExclusionReason, Tally>;
  deferred: Record<DeferralReason, Tally>;
  quietZones: Map<string, boolean>;
  reached: number;
  deferredTotal: number;
};

export async function campaignAudience(db: Db, workspaceId: string, campaignId: string) {
  const campaign = await requireCampaign(db, workspaceId, campaignId);
  const trigger = campaign.trigger as CampaignTrigger;
  if (trigger.type !== 'broadcast') {
    throw new ConflictError(
      'Only a broadcast has an audience known before it starts: its trigger must be {type: "broadcast"}.',
      'not-a-broadcast',
    );
  }
  const step = firstSendStep(allSteps(campaign.steps));
  if (!step) throw new ConflictError('The campaign has no send step: it sends nothing.', 'no-send-step');
  const now = new Date();
  const sendAt = trigger.sendAt ? new Date(trigger.sendAt) : now;
  const audit: Audit = {
    db,
    workspaceId,
    channel: step.channel,
    pacing: await readPacing(db, workspaceId),
    at: sendAt > now ? sendAt : now,
    excluded: Object.fromEntries(EXCLUSION_REASONS.map((r) => [r, tally()])) as Audit['excluded'],
    deferred: Object.fromEntries(DEFERRAL_REASONS.map((r) => [r, tally()])) as Audit['deferred'],
    quietZones: new Map(),
    reached: 0,
    deferredTotal: 0,
  };
  let members = 0;
  for (let after = ''; ; ) {
    const page = await memberPage(audit, trigger.segmentId, after);
    members += page.length;
    await tallyDeferrals(audit, classify(audit, page));
    if (page.length < PAGE_SIZE) break;
    after = page.at(-1)!.id;
  }
  return {
    campaignId,
    segmentId: trigger.segmentId,
    channel: step.channel,
    at: audit.at.toISOString(),
    members,
    reached: audit.reached,
    deferredTotal: audit.deferredTotal,
    excluded: EXCLUSION_REASONS.map((reason) => ({ reason, ...audit.excluded[reason] })),
    deferred: DEFERRAL_REASONS.map((reason) => {
      const { count, sample } = audit.deferred[reason];
      return { reason, count, sample };
    }),
  };
}

const MemberRow = z.object({
  id: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  timezone: z.string().nullable(),
  awaiting_consent: z.boolean(),
  telegram_chat_id: z.number().nullable(),
  has_push_subscription: z.boolean(),
  opt_outs: z.array(z.object({ channel: z.string(), reason: z.string().nullable() })),
});
type MemberRow = z.infer<typeof MemberRow>;

/**
 * A page of members with what delivery reads to decide: their addresses (reachColumns, as a send
 * reads them) and their opt-outs of the channel or of all (the rows findSuppressions joins).
 */
async function memberPage(audit: Audit, segmentId: string, after: string) {
  return audit.db.any(sql.type(MemberRow)`
    select c.id, c.email, c.phone, c.attributes->>'timezone' as timezone, ${reachColumns},
      coalesce((select jsonb_agg(jsonb_build_object('channel', s.channel, 'reason', s.reason))
        from contact_subscriptions s where s.workspace_id = c.workspace_id and s.contact_id = c.id
          and s.status = 'unsubscribed' and s.channel in (${audit.channel}, 'all')), '[]'::jsonb) as opt_outs
    from segment_memberships m
    join contacts c on c.workspace_id = m.workspace_id and c.id = m.contact_id
    where m.workspace_id = ${audit.workspaceId} and m.segment_id = ${segmentId} and m.contact_id > ${after}
    order by m.contact_id limit ${PAGE_SIZE}`);
}

/** Sorts a page of members: excluded (with the delivery path's reason) or sendable. */
function classify(audit: Audit, rows: readonly MemberRow[]): MemberRow[] {
  const sendable: MemberRow[] = [];
  for (const row of rows) {
    const member = { id: row.id, email: row.email };
    // Tracking plays no part in whether a contact is reachable.
    const context: SendContext = { ...row, track_opens: false, track_clicks: false };
    const unreachable = channelNamed(audit.channel).unreachable(context);
    const optOut = suppressionReason(row.opt_outs, audit.channel, false);
    if (unreachable) add(audit.excluded.no_address, member, unreachable);
    else if (optOut) add(audit.excluded[optOutReason(optOut)], member, optOut);
    else sendable.push(row);
  }
  audit.reached += sendable.length;
  return sendable;
}

/** Those the pace will hold back at the send time; a contact held by both counts under each. */
async function tallyDeferrals(audit: Audit, sendable: readonly MemberRow[]) {
  const { frequencyCap, quietHours, timezone } = audit.pacing;
  if (sendable.length === 0 || (!frequencyCap && !quietHours)) return;
  const capped = frequencyCap
    ? await cappedContacts(
        audit.db,
        audit.workspaceId,
        sendable.map((row) => row.id),
        frequencyCap,
        audit.at,
      )
    : new Set<string>();
  for (const row of sendable) {
    const member = { id: row.id, email: row.email };
    const isCapped = capped.has(row.id);
    if (isCapped) add(audit.deferred.frequency_cap, member);
    const quiet = quietHours ? await inQuietHours(audit, zoneOf(row.timezone, timezone)) : false;
    if (quiet) add(audit.deferred.quiet_hours, member);
    if (isCapped || quiet) audit.deferredTotal += 1;
  }
}

/** Whether the send time falls in the quiet hours of a zone (once per zone, not per contact). */
async function inQuietHours(audit: Audit, zone: string): Promise<boolean> {
  const known = audit.quietZones.get(zone);
  if (known !== undefined) return known;
  const quiet = (await quietUntil(audit.db, zone, audit.pacing.quietHours!, audit.at)) !== null;
  audit.quietZones.set(zone, quiet);
  return quiet;
}
