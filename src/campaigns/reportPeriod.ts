// The period a report covers and the buckets its charts count in, from what a person (or the API)
// asks: the last 24 hours, 7, 30 or 90 days, or a custom range of UTC days; hour or day buckets.
//
//   resolvePeriod({ period: '7d', bucket: 'day' }, now)
//     → { name: '7d', bucket: 'day', from: <today − 6 days, 00:00 UTC>, to: <tomorrow 00:00 UTC>, buckets: [7 instants] }
//
// A rolling period ends with the bucket that holds `now` (the current hour or day, still filling)
// and counts back whole buckets: "the last 7 days" is today and the 6 days before it. Buckets are
// UTC hours or days; a custom range is whole UTC days, both ends included.
import { z } from 'zod';
import '../http/openapi.ts';

export const PERIODS = ['24h', '7d', '30d', '90d', 'custom'] as const;
export const BUCKETS = ['hour', 'day'] as const;
export type PeriodName = (typeof PERIODS)[number];
export type Bucket = (typeof BUCKETS)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const BUCKET_MS: Record<Bucket, number> = { hour: HOUR_MS, day: DAY_MS };
const ROLLING_MS: Record<Exclude<PeriodName, 'custom'>, number> = {
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
  '90d': 90 * DAY_MS,
};
/** Hour buckets over more than this many days would draw thousands of points: days instead. */
export const MAX_HOURLY_DAYS = 31;
/** The longest custom range: a year and a day (a leap year's dates both ends included). */
export const MAX_CUSTOM_DAYS = 367;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A day that exists: Date.parse takes 2026-02-30 as March 2nd, so the date must read back the same. */
const isCalendarDay = (value: string) => {
  const at = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().startsWith(value);
};
const utcDay = z
  .string()
  .regex(DAY, 'must be a date as YYYY-MM-DD')
  .refine(isCalendarDay, 'is not a calendar date');

export const ReportQuery = z
  .object({
    period: z.enum(PERIODS).default('30d').openapi({
      description:
        'The last 24 hours, 7, 30 or 90 days (ending with the current hour or UTC day), or `custom`: the UTC days `from` to `to`, both included.',
    }),
    bucket: z
      .enum(BUCKETS)
      .optional()
      .openapi({
        description: `What the series counts in: UTC hours or days. Default: hours for 24h, days otherwise. Hours over at most ${MAX_HOURLY_DAYS} days.`,
      }),
    from: utcDay.optional().openapi({ description: 'First day of a custom period (YYYY-MM-DD, UTC).' }),
    to: utcDay
      .optional()
      .openapi({ description: 'Last day of a custom period (YYYY-MM-DD, UTC), included.' }),
  })
  .superRefine((query, context) => {
    const issue = (path: string, message: string) =>
      context.addIssue({ code: 'custom', path: [path], message });
    if (query.period !== 'custom') {
      for (const field of ['from', 'to'] as const)
        if (query[field] !== undefined) issue(field, 'is only read with period=custom');
      if (query.period === '24h' && query.bucket === 'day') issue('bucket', 'must be hour for period=24h');
      if (query.period === '90d' && query.bucket === 'hour')
        issue('bucket', `must be day for a period longer than ${MAX_HOURLY_DAYS} days`);
      return;
    }
    if (!query.from || !query.to) {
      if (!query.from) issue('from', 'is required with period=custom');
      if (!query.to) issue('to', 'is required with period=custom');
      return;
    }
    // A malformed date has its own issue already.
    if (![query.from, query.to].every((day) => DAY.test(day) && isCalendarDay(day))) return;
    const days = (Date.parse(query.to) - Date.parse(query.from)) / DAY_MS + 1;
    if (days < 1) issue('to', 'must not be before from');
    else if (days > MAX_CUSTOM_DAYS) issue('to', `must be at most ${MAX_CUSTOM_DAYS} days after from`);
    else if (query.bucket === 'hour' && days > MAX_HOURLY_DAYS)
      issue('bucket', `must be day for a period longer than ${MAX_HOURLY_DAYS} days`);
  })
  .openapi('ReportQuery');

export type ReportQueryInput = z.output<typeof ReportQuery>;

export type Period = {
  name: PeriodName;
  bucket: Bucket;
  /** The first bucket's start (included). */
  from: Date;
  /** The end of the last bucket (excluded). */
  to: Date;
  /** Each bucket's start, oldest first. */
  buckets: Date[];
};

const floorTo = (at: number, bucket: Bucket) => Math.floor(at / BUCKET_MS[bucket]) * BUCKET_MS[bucket];

/** The period a valid query names, at `now`. */
export function resolvePeriod(query: ReportQueryInput, now = new Date()): Period {
  const name = query.period;
  const bucket: Bucket = query.bucket ?? (name === '24h' ? 'hour' : 'day');
  const size = BUCKET_MS[bucket];
  let from: number;
  let to: number;
  if (name === 'custom') {
    from = Date.parse(`${query.from}T00:00:00Z`);
    to = Date.parse(`${query.to}T00:00:00Z`) + DAY_MS;
  } else {
    to = floorTo(now.getTime(), bucket) + size;
    from = to - Math.max(1, Math.round(ROLLING_MS[name] / size)) * size;
  }
  const buckets = Array.from({ length: (to - from) / size }, (_, i) => new Date(from + i * size));
  return { name, bucket, from: new Date(from), to: new Date(to), buckets };
}
