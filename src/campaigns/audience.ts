// A broadcast's audience before it is sent (a dry run): who among the segment's members its first
// send step will reach, and why the others will not. Nothing is written. The rules are the
// delivery path's own, called rather than copied: the channel's `unreachable` (no address), the
// opt-outs read by findSuppressions (hard bounce, complaint, soft bounces, unsubscribed from all or
// from the channel, in that order, as messages/deliver.ts applies them), and the pacing that
// delays a send (frequency cap, quiet hours: deferred, not dropped). Set-based: one statement
// groups the members by the facts those rules read (opt-outs, chats, browsers and capped contacts
// joined as sets, by hash), the rules are applied once per group, and a reason's sample (its first
// members in contact order) is read only for the groups that can enter it. At 1,000,000 members
// it answers in seconds, not the minute a page-by-page read took (see docs/guides/campaigns.md).
import { z } from 'zod';
import { channelNamed, type SendContext, sendablePushSubscription } from '../channels/index.ts';
import { ConflictError } from '../core/errors.ts';
import { type Db, sql } from '../db/pool.ts';
import {
  ADDRESS_REFUSALS,
  type OptOutReason,
  suppressionReason,
  UNSUBSCRIBED_FROM_ALL,
} from '../messages/index.ts';
import { allSteps } from './flow.ts';
import { cappedContactsQuery, type Pacing, quietUntil, readPacing, zoneOf } from './pacing.ts';
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

type Member = { id: string; email: string | null };
type Tally = { count: number; description: string | null; sample: Member[] };

function tally(): Tally {
  return { count: 0, description: null, sample: [] };
}

/**
 * Counts a group of members under a reason; the reason's sample is its first members in contact
 * order, so a group's sample is read only when one of its members may enter it.
 */
async function add(audit: Audit, into: Tally, group: Group, description: string | null = null) {
  into.count += group.count;
  into.description ??= description;
  if (into.sample.length >= SAMPLE_SIZE && into.sample.every((member) => member.id < group.first)) return;
  group.sample ??= await groupSample(audit, group);
  into.sample = [...into.sample, ...group.sample.map((id) => ({ id, email: null }))]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .slice(0, SAMPLE_SIZE);
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
  segmentId: string;
  channel: string;
  pacing: Pacing;
  at: Date;
  excluded: Record<ExclusionReason, Tally>;
  deferred: Record<DeferralReason, Tally>;
  quietZones: Map<string, boolean>;
  reached: number;
  deferredTotal: number;
};

/** What a broadcast's audience is counted for: its segment, its first send step's channel, its send time and the pacing. */
export type AudienceTarget = {
  campaignId: string;
  segmentId: string;
  channel: string;
  sendAt: string | null;
  pacing: Pacing;
};

/** The campaign's audience target; a 409 when it is not a broadcast or sends nothing, 404 when it is not here. */
export async function audienceTarget(
  db: Db,
  workspaceId: string,
  campaignId: string,
): Promise<AudienceTarget> {
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
  return {
    campaignId,
    segmentId: trigger.segmentId,
    channel: step.channel,
    sendAt: trigger.sendAt ?? null,
    pacing: await readPacing(db, workspaceId),
  };
}

export type Audience = Awaited<ReturnType<typeof countAudience>>;

/** The audience of a broadcast, counted now. */
export async function campaignAudience(db: Db, workspaceId: string, campaignId: string) {
  return countAudience(db, workspaceId, await audienceTarget(db, workspaceId, campaignId));
}

/** Counts the target's audience now, with the pacing it names. */
export async function countAudience(db: Db, workspaceId: string, target: AudienceTarget) {
  const now = new Date();
  const sendAt = target.sendAt ? new Date(target.sendAt) : now;
  const audit: Audit = {
    db,
    workspaceId,
    segmentId: target.segmentId,
    channel: target.channel,
    pacing: target.pacing,
    at: sendAt > now ? sendAt : now,
    excluded: Object.fromEntries(EXCLUSION_REASONS.map((r) => [r, tally()])) as Audit['excluded'],
    deferred: Object.fromEntries(DEFERRAL_REASONS.map((r) => [r, tally()])) as Audit['deferred'],
    quietZones: new Map(),
    reached: 0,
    deferredTotal: 0,
  };
  let members = 0;
  for (const group of await memberGroups(audit)) {
    members += group.count;
    if (await classify(audit, group)) await tallyDeferrals(audit, group);
  }
  await addSampleEmails(audit);
  return {
    campaignId: target.campaignId,
    segmentId: target.segmentId,
    channel: target.channel,
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

const Group = z.object({
  email: z.string().nullable(),
  phone: z.string().nullable(),
  telegram_chat_id: z.number().nullable(),
  has_push_subscription: z.boolean(),
  awaiting_consent: z.boolean(),
  opt_outs: z.array(z.object({ channel: z.string(), reason: z.string().nullable() })),
  timezone: z.string().nullable(),
  capped: z.boolean(),
  /** Its members have a fact beyond their own row (an opt-out, a chat, a browser, consent to confirm, the cap). */
  special: z.boolean(),
  count: z.number(),
  first: z.string(),
});
type Group = z.infer<typeof Group> & { sample?: readonly string[] };

/**
 * What delivery reads beyond a member's own row, one kind at a time, as rows of (contact_id, kind,
 * channel, reason, chat_id, linked_at): opt-outs of the channel or of all (the rows findSuppressions
 * reads), consent to confirm, linked Telegram chats, browsers to push to, and the contacts the
 * frequency cap holds. Few members of a real list have any.
 */
function factKinds(audit: Audit) {
  const { workspaceId, channel, pacing, at } = audit;
  const kinds = [
    sql.fragment`select contact_id, 'opt_out' as kind, channel, reason, null::bigint as chat_id, null::timestamptz as linked_at
      from contact_subscriptions
      where workspace_id = ${workspaceId} and status = 'unsubscribed' and channel in (${channel}, 'all')`,
    sql.fragment`select contact_id, 'unconfirmed', null, null, null, null from contact_subscriptions
      where workspace_id = ${workspaceId} and channel = 'email' and status = 'unsubscribed' and reason = 'unconfirmed'`,
    sql.fragment`select contact_id, 'chat', null, null, chat_id, linked_at from telegram_chats
      where workspace_id = ${workspaceId}`,
    sql.fragment`select p.contact_id, 'browser', null, null, null, null from push_subscriptions p
      join contacts pc on pc.workspace_id = p.workspace_id and pc.id = p.contact_id
      where p.workspace_id = ${workspaceId} and ${sendablePushSubscription(sql.fragment`p`, sql.fragment`pc`)}`,
  ];
  if (pacing.frequencyCap)
    kinds.push(sql.fragment`select contact_id, 'capped', null, null, null, null
      from (${cappedContactsQuery(workspaceId, pacing.frequencyCap, at)}) capped`);
  return kinds;
}

/**
 * The members with what delivery reads to decide, in one pass: whether each has an email and a
 * phone, its time zone when quiet hours apply (the contact's row), and its facts of factKinds, read
 * once as a small set of the few members that have any (`special`, one row each) and joined to
 * them: the others (most members) carry none. `from` is every member, or only the special ones
 * (their samples: read from the small set rather than along the segment).
 */
function membersWithFacts(audit: Audit, from: 'members' | 'special' = 'members') {
  const { workspaceId, segmentId, pacing } = audit;
  const zone = pacing.quietHours ? sql.fragment`c.attributes->>'timezone'` : sql.fragment`null::text`;
  const members =
    from === 'members'
      ? sql.fragment`segment_memberships m left join special s on s.contact_id = m.contact_id`
      : sql.fragment`special s join segment_memberships m on m.workspace_id = ${workspaceId}
          and m.segment_id = ${segmentId} and m.contact_id = s.contact_id`;
  return sql.fragment`
    with special as (
      select contact_id,
        coalesce(jsonb_agg(jsonb_build_object('channel', channel, 'reason', reason) order by channel, reason)
          filter (where kind = 'opt_out'), '[]') as opt_outs,
        bool_or(kind = 'unconfirmed') as awaiting_consent,
        (array_agg(chat_id order by linked_at desc) filter (where kind = 'chat'))[1] as chat_id,
        bool_or(kind = 'browser') as has_push,
        bool_or(kind = 'capped') as capped
      from (${sql.join(factKinds(audit), sql.fragment` union all `)}) fact
      -- The segment's own: a small segment's count and samples then touch its members' facts alone.
      where contact_id in (select contact_id from segment_memberships
        where workspace_id = ${workspaceId} and segment_id = ${segmentId})
      group by contact_id),
    facts as (
      select m.contact_id, c.email, c.phone, s.chat_id, coalesce(s.has_push, false) as has_push,
        coalesce(s.awaiting_consent, false) as awaiting_consent, coalesce(s.opt_outs, '[]') as opt_outs,
        ${zone} as timezone, coalesce(s.capped, false) as capped, s.contact_id is not null as special
      from ${members}
      join contacts c on c.workspace_id = m.workspace_id and c.id = m.contact_id
      where m.workspace_id = ${workspaceId} and m.segment_id = ${segmentId})`;
}

/**
 * The members in groups delivery cannot tell apart (the same facts, an address being there or not),
 * counted by hash in one statement. Each group carries one member's real values (any of them), so a
 * channel's `unreachable` sees an address that exists, and its first member's id.
 */
async function memberGroups(audit: Audit): Promise<readonly Group[]> {
  return audit.db.any(sql.type(Group)`
    ${membersWithFacts(audit)}
    select any_value(email) as email, any_value(phone) as phone, any_value(chat_id) as telegram_chat_id,
      has_push as has_push_subscription, awaiting_consent, opt_outs, timezone, capped,
      bool_or(special) as special, count(*)::int as count, min(contact_id) as first
    from facts
    group by email is null, phone is null, chat_id is null, has_push, awaiting_consent, opt_outs, timezone, capped`);
}

const present = (value: unknown) => (value === null ? sql.fragment`is null` : sql.fragment`is not null`);

/** The first members of a group, in contact order: its sample (read for the groups shown only). */
async function groupSample(audit: Audit, group: Group): Promise<readonly string[]> {
  if (group.count === 1) return [group.first];
  const Id = z.object({ contact_id: z.string() });
  if (group.special) {
    return audit.db.anyFirst(sql.type(Id)`
      ${membersWithFacts(audit, 'special')}
      select contact_id from facts
      where email ${present(group.email)} and phone ${present(group.phone)}
        and chat_id ${present(group.telegram_chat_id)} and has_push = ${group.has_push_subscription}
        and awaiting_consent = ${group.awaiting_consent} and opt_outs = ${sql.jsonb(group.opt_outs)}
        and timezone is not distinct from ${group.timezone} and capped = ${group.capped}
      order by contact_id limit ${SAMPLE_SIZE}`);
  }
  // Members with no fact beyond their row, in contact order from the group's first: read along the
  // segment's index, each checked for the few facts by index, until five are found.
  const zone = audit.pacing.quietHours
    ? sql.fragment`and c.attributes->>'timezone' is not distinct from ${group.timezone}`
    : sql.fragment``;
  const none = factKinds(audit).map(
    (kind) => sql.fragment`and not exists (select 1 from (${kind}) k where k.contact_id = m.contact_id)`,
  );
  return audit.db.anyFirst(sql.type(Id)`
    select m.contact_id from segment_memberships m
    join contacts c on c.workspace_id = m.workspace_id and c.id = m.contact_id
    where m.workspace_id = ${audit.workspaceId} and m.segment_id = ${audit.segmentId}
      and m.contact_id >= ${group.first} and c.email ${present(group.email)} and c.phone ${present(group.phone)}
      ${zone} ${sql.join(none, sql.fragment` `)}
    order by m.contact_id limit ${SAMPLE_SIZE}`);
}

/** Counts a group as excluded (with the delivery path's reason) or reached; true when reached. */
async function classify(audit: Audit, group: Group): Promise<boolean> {
  // Tracking plays no part in whether a contact is reachable.
  const context: SendContext = { ...group, track_opens: false, track_clicks: false };
  const unreachable = channelNamed(audit.channel).unreachable(context);
  const optOut = suppressionReason(group.opt_outs, audit.channel, false);
  if (unreachable) await add(audit, audit.excluded.no_address, group, unreachable);
  else if (optOut) await add(audit, audit.excluded[optOutReason(optOut)], group, optOut);
  else audit.reached += group.count;
  return !unreachable && !optOut;
}

/** Those the pace will hold back at the send time; a contact held by both counts under each. */
async function tallyDeferrals(audit: Audit, group: Group) {
  const { quietHours, timezone } = audit.pacing;
  const quiet = quietHours ? await inQuietHours(audit, zoneOf(group.timezone, timezone)) : false;
  if (group.capped) await add(audit, audit.deferred.frequency_cap, group);
  if (quiet) await add(audit, audit.deferred.quiet_hours, group);
  if (group.capped || quiet) audit.deferredTotal += group.count;
}

/** The samples' emails, in one read. */
async function addSampleEmails(audit: Audit) {
  const tallies = [...Object.values(audit.excluded), ...Object.values(audit.deferred)];
  const ids = [...new Set(tallies.flatMap((t) => t.sample.map((member) => member.id)))];
  if (ids.length === 0) return;
  const rows = await audit.db.any(sql.type(z.object({ id: z.string(), email: z.string().nullable() }))`
    select id, email from contacts where workspace_id = ${audit.workspaceId} and id = any(${sql.array(ids, 'text')})`);
  const emails = new Map(rows.map((row) => [row.id, row.email]));
  for (const t of tallies)
    t.sample = t.sample.map((member) => ({ id: member.id, email: emails.get(member.id) ?? null }));
}

/** Whether the send time falls in the quiet hours of a zone (once per zone, not per contact). */
async function inQuietHours(audit: Audit, zone: string): Promise<boolean> {
  const known = audit.quietZones.get(zone);
  if (known !== undefined) return known;
  const quiet = (await quietUntil(audit.db, zone, audit.pacing.quietHours!, audit.at)) !== null;
  audit.quietZones.set(zone, quiet);
  return quiet;
}
