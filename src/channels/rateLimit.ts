// Sending rates (provider limits), per workspace and channel, enforced across every worker process
// by a limiter in PostgreSQL: each send reserves the next free time slot of its workspace and
// channel in one atomic statement (see sql/0019), and is delayed to that slot, never dropped. A
// workspace's own rate wins; else the channel's default below; else the channel is not limited.
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { CHANNEL_RATE_DEFAULTS, type ChannelName } from './registry.ts';

/** Messages per second per workspace when the workspace sets no rate: each channel's `defaultRatePerSecond`. */
export const channelRateDefaults = CHANNEL_RATE_DEFAULTS;

export type ChannelRates = Partial<Record<ChannelName, number>>;

export async function findChannelRates(db: Db, workspaceId: string): Promise<ChannelRates> {
  const rows = await db.any(sql.type(z.object({ channel: z.string(), rate_per_second: z.number() }))`
    select channel, rate_per_second from channel_send_rates
    where workspace_id = ${workspaceId} and rate_per_second is not null
    order by channel
  `);
  return Object.fromEntries(rows.map((row) => [row.channel, row.rate_per_second]));
}

/** Replaces the workspace's rates: a channel left out goes back to its default. */
export async function setChannelRates(db: Db, workspaceId: string, rates: ChannelRates): Promise<void> {
  const entries = Object.entries(rates).filter(([, rate]) => rate != null);
  await db.query(sql.typeAlias('void')`
    update channel_send_rates set rate_per_second = null where workspace_id = ${workspaceId}
  `);
  if (entries.length === 0) return;
  await db.query(sql.typeAlias('void')`
    insert into channel_send_rates (workspace_id, channel, rate_per_second)
    select ${workspaceId}, channel, rate
    from unnest(${sql.array(
      entries.map(([channel]) => channel),
      'text',
    )}::text[], ${sql.array(
      entries.map(([, rate]) => rate as number),
      'float8',
    )}::float8[]) as given (channel, rate)
    on conflict (workspace_id, channel) do update set rate_per_second = excluded.rate_per_second
  `);
}

/**
 * SQL: no rate applies to this workspace's channel (neither its own nor the channel's default), for
 * a send that needs no slot. The arguments are SQL expressions (columns of the caller's query).
 */
export function noSendRate(workspaceId: FragmentSqlToken, channel: FragmentSqlToken): FragmentSqlToken {
  return sql.fragment`coalesce(
    (select rate.rate_per_second from channel_send_rates rate
     where rate.workspace_id = ${workspaceId} and rate.channel = ${channel}),
    (${sql.jsonb(channelRateDefaults)}::jsonb ->> ${channel})::float8) is null`;
}

const Slot = z.object({ at_ms: z.number(), wait_ms: z.number() });
export type SendSlot = { at: Date; waitMs: number };

/**
 * Reserves the next send slot of the workspace's channel, not before `notBefore`: `at` (when the
 * send may start) and `waitMs` (how long from now, by the database's clock; ≤ 0: at once). Null
 * when no rate applies (neither the workspace's nor `defaultRate`, nor the channel's default).
 * The reservation commits with the caller's transaction; inside one, the row stays locked until
 * then, so keep that transaction short.
 */
export async function reserveSendSlot(
  db: Db,
  input: { workspaceId: string; channel: ChannelName; notBefore?: Date | null; defaultRate?: number },
): Promise<SendSlot | null> {
  const fallback = input.defaultRate ?? channelRateDefaults[input.channel] ?? null;
  const notBefore = input.notBefore?.toISOString() ?? null;
  const slot = await db.maybeOne(sql.type(Slot)`
    with configured as (
      select coalesce(
        (select rate_per_second from channel_send_rates
         where workspace_id = ${input.workspaceId} and channel = ${input.channel}),
        ${fallback}::float8) as rate
    )
    insert into channel_send_rates as r (workspace_id, channel, next_slot_at)
    select ${input.workspaceId}, ${input.channel},
      greatest(now(), ${notBefore}::timestamptz) + make_interval(secs => 1 / rate)
    from configured where rate is not null
    on conflict (workspace_id, channel) do update
      set next_slot_at = greatest(r.next_slot_at, now(), ${notBefore}::timestamptz)
        + make_interval(secs => 1 / coalesce(r.rate_per_second, ${fallback}::float8))
    returning
      extract(epoch from r.next_slot_at - make_interval(secs => 1 / coalesce(r.rate_per_second, ${fallback}::float8)))::float8 * 1000 as at_ms,
      extract(epoch from r.next_slot_at
        - make_interval(secs => 1 / coalesce(r.rate_per_second, ${fallback}::float8)) - now())::float8 * 1000 as wait_ms
  `);
  return slot ? { at: new Date(slot.at_ms), waitMs: slot.wait_ms } : null;
}
