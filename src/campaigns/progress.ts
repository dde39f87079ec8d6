// A broadcast's progress while it sends (and after): its messages by status, those that did not go
// grouped by reason, what is left (queued, sending, and members not yet enrolled), the rate and the
// time left, and its start, enrolled and finish times. One statement reads it all: the message
// counts from the campaign's counters (sql/0060: a few rows, where counting 100,000 messages by
// status each second while they change took 9 % of a broadcast's send rate), the messages being
// sent (a few hundred at most) and the reasons from the rows that did not go, and the members left
// from the segment's key past the broadcast's cursor (only while it enrolls). The API answers with the average rate since the start; the console's
// stream (progressStream.ts) with the rate over its last samples, shared by all its viewers.
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../core/errors.ts';
import { type Db, sql } from '../db/pool.ts';
import '../http/openapi.ts';
import { Timestamp } from '../http/validation.ts';

/** Reasons shown apart; the rest are summed under `other`. */
const REASONS_SHOWN = 10;

const Count = z.number().int().min(0);

export const CampaignProgress = z
  .object({
    campaignId: z.string(),
    status: z.enum(['draft', 'active', 'paused', 'archived']),
    state: z.enum(['scheduled', 'enrolling', 'sending', 'finished', 'not_started']).openapi({
      description:
        'not_started: never activated; scheduled: activated, waiting for its send time; enrolling: members are ' +
        'still being enrolled; sending: all enrolled, messages left; finished: none left (finishedAt is set).',
    }),
    startedAt: Timestamp.nullable().openapi({ description: 'When its first members were enrolled.' }),
    enrolledAt: Timestamp.nullable().openapi({ description: 'When its last member was enrolled.' }),
    finishedAt: Timestamp.nullable().openapi({
      description: 'When its last message left the queue (sent, failed, bounced or suppressed).',
    }),
    messages: z
      .object({
        queued: Count,
        sending: Count.openapi({ description: 'Claimed, handed to the provider, no answer yet.' }),
        sent: Count,
        failed: Count,
        bounced: Count,
        suppressed: Count.openapi({
          description: 'Not sent: no address, opted out, bounced or complained before.',
        }),
      })
      .openapi({ description: "The broadcast's messages by status now." }),
    toEnroll: Count.openapi({
      description: 'Members of the segment not yet enrolled (each will have its message queued).',
    }),
    left: Count.openapi({ description: 'queued + sending + toEnroll.' }),
    settled: Count.openapi({ description: 'sent + failed + bounced + suppressed.' }),
    notSent: z
      .array(
        z.object({
          status: z.enum(['failed', 'bounced', 'suppressed']),
          reason: z
            .string()
            .openapi({ description: 'The error the send recorded ("other": the rest summed).' }),
          count: Count,
        }),
      )
      .openapi({
        description: `Messages that did not go, by status and reason, most first (${REASONS_SHOWN} shown, then "other").`,
      }),
    rate: z
      .object({
        sentPerSecond: z.number().min(0),
        settledPerSecond: z
          .number()
          .min(0)
          .openapi({ description: 'Messages leaving the queue, whatever their outcome.' }),
        over: z.enum(['since_start', 'recent']).openapi({
          description:
            'since_start: the average from startedAt to finishedAt (or now); recent: over the last seconds of a live stream.',
        }),
      })
      .openapi({ description: 'Zero before the start.' }),
    secondsLeft: z.number().int().min(0).nullable().openapi({
      description:
        'left ÷ settledPerSecond, rounded up; 0 once finished; null while nothing has settled yet.',
    }),
    asOf: Timestamp,
  })
  .openapi('CampaignProgress');
export type CampaignProgress = z.output<typeof CampaignProgress>;

const STATUSES = ['queued', 'sending', 'sent', 'failed', 'bounced', 'suppressed'] as const;

const ProgressRow = z.object({
  status: z.enum(['draft', 'active', 'paused', 'archived']),
  trigger_type: z.string(),
  activated_at: z.string().nullable(),
  started_at: z.string().nullable(),
  enrolled_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  to_enroll: z.number(),
  /** The counters' figures: `queued` counts queued and sending messages alike. */
  counts: z.record(z.string(), z.number()),
  sending: z.number(),
  not_sent: z.array(z.object({ status: z.string(), reason: z.string().nullable(), count: z.number() })),
  as_of: z.string(),
});
export type ProgressRow = z.infer<typeof ProgressRow>;

/** The campaign's figures now, in one statement; null when no such campaign is in the workspace. */
export async function readProgressRow(db: Db, workspaceId: string, campaignId: string) {
  return db.maybeOne(sql.type(ProgressRow)`
    select c.status, c.trigger->>'type' as trigger_type, c.activated_at,
      c.broadcast_started_at as started_at, c.broadcast_done_at as enrolled_at,
      c.broadcast_finished_at as finished_at, now() as as_of,
      case when c.broadcast_cursor is null or c.broadcast_done_at is not null then 0
        else (select count(*)::int from segment_memberships s
              where s.segment_id = c.trigger->>'segmentId' and s.contact_id > c.broadcast_cursor) end as to_enroll,
      (select jsonb_build_object('queued', coalesce(sum(k.queued), 0), 'sent', coalesce(sum(k.sent), 0),
          'failed', coalesce(sum(k.failed), 0), 'bounced', coalesce(sum(k.bounced), 0),
          'suppressed', coalesce(sum(k.suppressed), 0))
        from campaign_step_counts k where k.workspace_id = c.workspace_id and k.campaign_id = c.id) as counts,
      (select count(*)::int from messages
        where workspace_id = c.workspace_id and campaign_id = c.id and status = 'sending') as sending,
      coalesce((select jsonb_agg(jsonb_build_object('status', f.status, 'reason', f.error, 'count', f.n)
          order by f.n desc, f.status, f.error) from (
        select status, error, count(*)::int as n from messages
        where workspace_id = c.workspace_id and campaign_id = c.id and status in ('failed', 'bounced', 'suppressed')
        group by status, error) f), '[]') as not_sent
    from campaigns c where c.workspace_id = ${workspaceId} and c.id = ${campaignId}`);
}

type NotSent = CampaignProgress['notSent'];

/** The largest groups apart, the rest summed as "other" (a broadcast may fail a thousand ways). */
function notSentGroups(rows: ProgressRow['not_sent']): NotSent {
  const groups = rows.map((row) => ({
    status: row.status as NotSent[number]['status'],
    reason: row.reason ?? 'no reason recorded',
    count: row.count,
  }));
  if (groups.length <= REASONS_SHOWN) return groups;
  const rest = groups.slice(REASONS_SHOWN - 1);
  const other = new Map<NotSent[number]['status'], number>();
  for (const group of rest) other.set(group.status, (other.get(group.status) ?? 0) + group.count);
  return [
    ...groups.slice(0, REASONS_SHOWN - 1),
    ...[...other].map(([status, count]) => ({ status, reason: 'other', count })),
  ];
}

function stateOf(row: ProgressRow): CampaignProgress['state'] {
  if (row.finished_at) return 'finished';
  if (!row.activated_at) return 'not_started';
  if (!row.started_at) return 'scheduled';
  if (!row.enrolled_at) return 'enrolling';
  return 'sending';
}

export type Rate = CampaignProgress['rate'];

/** The average rate from the start to the finish (or now). */
export function averageRate(row: ProgressRow, sent: number, settled: number): Rate {
  const from = row.started_at ? Date.parse(row.started_at) : null;
  const to = Date.parse(row.finished_at ?? row.as_of);
  const seconds = from === null ? 0 : (to - from) / 1000;
  if (seconds <= 0) return { sentPerSecond: 0, settledPerSecond: 0, over: 'since_start' };
  return {
    sentPerSecond: round(sent / seconds),
    settledPerSecond: round(settled / seconds),
    over: 'since_start',
  };
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The figures of a row, with `rate` given (the stream's recent one) or the average since the start. */
export function progressOf(campaignId: string, row: ProgressRow, rate?: Rate): CampaignProgress {
  const messages = Object.fromEntries(
    STATUSES.map((s) => [s, row.counts[s] ?? 0]),
  ) as CampaignProgress['messages'];
  messages.sending = row.sending;
  messages.queued = Math.max(0, messages.queued - row.sending);
  const left = messages.queued + messages.sending + row.to_enroll;
  const settled = messages.sent + messages.failed + messages.bounced + messages.suppressed;
  const speed = rate ?? averageRate(row, messages.sent, settled);
  let secondsLeft: number | null = null;
  if (row.finished_at) secondsLeft = 0;
  else if (speed.settledPerSecond > 0) secondsLeft = Math.ceil(left / speed.settledPerSecond);
  return {
    campaignId,
    status: row.status,
    state: stateOf(row),
    startedAt: row.started_at,
    enrolledAt: row.enrolled_at,
    finishedAt: row.finished_at,
    messages,
    toEnroll: row.to_enroll,
    left,
    settled,
    notSent: notSentGroups(row.not_sent),
    rate: speed,
    secondsLeft,
    asOf: row.as_of,
  };
}

/** The progress row of a broadcast of the workspace: 404 for another's, 409 for another trigger. */
export async function requireProgressRow(db: Db, workspaceId: string, campaignId: string) {
  const row = await readProgressRow(db, workspaceId, campaignId);
  if (!row) throw new NotFoundError('Campaign');
  if (row.trigger_type !== 'broadcast')
    throw new ConflictError(
      'Only a broadcast has a sending progress: its trigger must be {type: "broadcast"}.',
      'not-a-broadcast',
    );
  return row;
}

export async function campaignProgress(db: Db, workspaceId: string, campaignId: string) {
  return progressOf(campaignId, await requireProgressRow(db, workspaceId, campaignId));
}
