// Pacing of campaign sends, per workspace: a frequency cap (at most `count` campaign messages to a
// contact per `per`) and quiet hours (no send between `start` and `end` in the contact's time zone,
// else the workspace's default `timezone`, which waits `until` a time of day use too), and each
// channel's `ratePerSecond` (a provider's limit, for every message of the channel, campaign or
// transactional: kept and enforced by the channels' limiter, across all worker processes). A send the pace refuses is delayed, not dropped: its step job comes back when the cap
// or the quiet hours allow, and checks again. Sends to one contact are paced one at a time (a
// transaction-scoped advisory lock), so two campaigns cannot both take the last place under a cap.
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { recordAudit } from '../audit/index.ts';
import {
  CHANNEL_NAMES,
  CHANNEL_REGISTRY,
  type ChannelDefinition,
  type ChannelName,
  findChannelRates,
  setChannelRates,
} from '../channels/index.ts';
import { type Db, sql, type Tx } from '../db/pool.ts';
import { durationSeconds, IsoDuration } from '../segments/index.ts';
import { Clock, isTimeZone, TimeZone } from './schemas.ts';
import '../http/openapi.ts';

const SendRate = z
  .number()
  .positive()
  .max(100_000)
  .nullable()
  .optional()
  .openapi({ description: 'Messages per second (0.5: one every two seconds); null or absent: the default.' });

type RateShape = Record<ChannelName, typeof SendRate>;

const defaultsText = CHANNEL_REGISTRY.flatMap((channel: ChannelDefinition) =>
  channel.defaultRatePerSecond === undefined ? [] : [`${channel.title}: ${channel.defaultRatePerSecond}`],
).join(', ');

export const Pacing = z
  .strictObject({
    frequencyCap: z
      .strictObject({ count: z.number().int().min(1).max(1_000), per: IsoDuration })
      .nullable()
      .optional()
      .openapi({ description: 'At most `count` campaign messages to a contact per `per`; more wait.' }),
    quietHours: z
      .strictObject({ start: Clock, end: Clock })
      .refine((hours) => hours.start !== hours.end, { message: 'start and end must differ' })
      .nullable()
      .optional()
      .openapi({
        description:
          "No campaign send from start to end in the contact's `timezone` attribute, else in the workspace's `timezone`.",
      }),
    ratePerSecond: z
      .strictObject(Object.fromEntries(CHANNEL_NAMES.map((name) => [name, SendRate])) as RateShape)
      .optional()
      .openapi({
        description:
          "Messages per second per channel, the provider's limit, for all of the workspace's sends on it " +
          '(campaign and transactional), across every worker process. A send over the rate is delayed, ' +
          `never dropped. A channel left out has no limit, or its default (${defaultsText}).`,
        example: { email: 50 },
      }),
    timezone: TimeZone.nullable()
      .optional()
      .openapi({
        description:
          "The workspace's default time zone (IANA name; null or absent: UTC), for contacts without a " +
          'valid `timezone` attribute: quiet hours, and waits `until` a time of day that name no zone.',
        example: 'Europe/Paris',
      }),
  })
  .openapi('CampaignPacing');
export type Pacing = z.infer<typeof Pacing>;

const Row = z.object({ pacing: z.record(z.string(), z.unknown()), timezone: z.string().nullable() });

/** The contact's own zone when it is one, else the workspace's default, else UTC. */
export function zoneOf(...candidates: (string | null | undefined)[]): string {
  return candidates.find((name): name is string => !!name && isTimeZone(name)) ?? 'UTC';
}

export async function readPacing(db: Db, workspaceId: string): Promise<Pacing> {
  const pacing = await db.oneFirst(sql.type(z.object({ campaign_pacing: z.record(z.string(), z.unknown()) }))`
    select campaign_pacing from workspaces where id = ${workspaceId}`);
  const ratePerSecond = await findChannelRates(db, workspaceId);
  return { frequencyCap: null, quietHours: null, timezone: null, ...(pacing as Pacing), ratePerSecond };
}

/**
 * Replaces the pacing, in the caller's transaction, and records the change in the audit log with
 * its before and after; the rates live with the channels' limiter, the rest with the workspace.
 */
export async function writePacing(tx: Tx, workspaceId: string, pacing: Pacing): Promise<Pacing> {
  const before = await readPacing(tx, workspaceId);
  const { ratePerSecond, ...campaignPacing } = pacing;
  await tx.query(sql.typeAlias('void')`
    update workspaces set campaign_pacing = ${sql.jsonb(campaignPacing as never)} where id = ${workspaceId}`);
  await setChannelRates(tx, workspaceId, (ratePerSecond ?? {}) as Record<string, number>);
  const after = await readPacing(tx, workspaceId);
  await recordAudit(tx, {
    workspaceId,
    action: 'campaignPacing.updated',
    targetId: workspaceId,
    before,
    after,
  });
  return after;
}

/** The end of the quiet hours the contact is in at `at` (default: now), or null. */
export async function quietUntil(
  db: Db,
  zone: string,
  hours: { start: string; end: string },
  at?: Date,
): Promise<Date | null> {
  const moment = at ? sql.fragment`${at.toISOString()}::timestamptz` : sql.fragment`now()`;
  const until = await db.maybeOneFirst(sql.type(z.object({ until: z.number().nullable() }))`
    with local as (select (${moment} at time zone ${zone}) as at, ${hours.start}::time as s, ${hours.end}::time as e)
    select case
      when s < e and at::time >= s and at::time < e then extract(epoch from (at::date + e) at time zone ${zone})
      when s > e and at::time >= s then extract(epoch from (at::date + 1 + e) at time zone ${zone})
      when s > e and at::time < e then extract(epoch from (at::date + e) at time zone ${zone})
    end::float8 * 1000 as until
    from local`);
  return until ? new Date(until) : null;
}

/** The messages a frequency cap counts at `at`: campaign messages queued, sending or sent within its period. */
function countedByCap(perSeconds: number, at: FragmentSqlToken) {
  return sql.fragment`campaign_id is not null and status in ('queued', 'sending', 'sent')
    and created_at > ${at} - make_interval(secs => ${perSeconds})`;
}

/** When the cap allows the contact's next campaign message, if it does not now. */
async function cappedUntil(
  db: Db,
  workspaceId: string,
  contactId: string,
  cap: { count: number; per: string },
) {
  const perSeconds = durationSeconds(cap.per) ?? 0;
  const until = await db.maybeOneFirst(sql.type(z.object({ until: z.number() }))`
    select extract(epoch from created_at + make_interval(secs => ${perSeconds}))::float8 * 1000 as until
    from messages
    where workspace_id = ${workspaceId} and contact_id = ${contactId}
      and ${countedByCap(perSeconds, sql.fragment`now()`)}
    order by created_at desc
    offset ${cap.count - 1} limit 1`);
  return until ? new Date(until) : null;
}

/**
 * The contacts of the workspace (or of `contactIds`) that `cap` holds at `at`: the count
 * cappedUntil makes for one contact, for many in one statement (`contact_id` rows).
 */
export function cappedContactsQuery(
  workspaceId: string,
  cap: { count: number; per: string },
  at: Date,
  contactIds?: readonly string[],
) {
  const perSeconds = durationSeconds(cap.per) ?? 0;
  const among = contactIds
    ? sql.fragment`and contact_id = any(${sql.array([...contactIds], 'text')})`
    : sql.fragment``;
  return sql.type(z.object({ contact_id: z.string() }))`
    select contact_id from messages
    where workspace_id = ${workspaceId} ${among}
      and ${countedByCap(perSeconds, sql.fragment`${at.toISOString()}::timestamptz`)}
    group by contact_id having count(*) >= ${cap.count}`;
}

/** When a campaign send to this contact may happen, if not now (the later of the two limits). */
export async function pacedUntil(db: Db, workspaceId: string, contactId: string): Promise<Date | null> {
  const row = await db.one(sql.type(Row)`
    select w.campaign_pacing as pacing, c.attributes->>'timezone' as timezone
    from workspaces w join contacts c on c.workspace_id = w.id and c.id = ${contactId}
    where w.id = ${workspaceId}`);
  const pacing = row.pacing as Pacing;
  if (!pacing.frequencyCap && !pacing.quietHours) return null;
  await db.query(sql.type(z.object({ locked: z.string() }))`
    select pg_advisory_xact_lock(hashtext(${contactId}))::text as locked`);
  const zone = zoneOf(row.timezone, pacing.timezone);
  const limits = [
    pacing.quietHours ? await quietUntil(db, zone, pacing.quietHours) : null,
    pacing.frequencyCap ? await cappedUntil(db, workspaceId, contactId, pacing.frequencyCap) : null,
  ];
  const later = limits.filter((at): at is Date => at !== null).sort((a, b) => b.getTime() - a.getTime());
  return later[0] ?? null;
}
