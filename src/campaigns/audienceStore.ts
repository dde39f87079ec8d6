// A broadcast's audience answered at once, whatever its size. Counting it reads every member with
// the facts delivery reads (audience.ts): tens of milliseconds for thousands of members, seconds at
// a million. So an audience of up to CAMPAIGN_AUDIENCE_LIVE_LIMIT members (the segment's kept member
// count says how many before counting) is counted at every request, exact as of now; a larger one
// is served its last count with the time it was taken (countedAt), flagged stale when what it was
// counted for changed or it is older than AUDIENCE_STALE_AFTER_MS, and counted again in the worker
// (the campaigns.audience job) when it is missing, stale or asked for (POST …/audience/recount).
// Never a figure presented as current that is not; activating never waits for a count.
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import { ConflictError, NotFoundError } from '../core/errors.ts';
import type { Db } from '../db/pool.ts';
import { runAsWorkspace } from '../db/workspaceShare.ts';
import { transactionalDb } from '../jobs/boss.ts';
import type { JobDefinition } from '../jobs/definition.ts';
import { segmentVersion } from '../segments/index.ts';
import { type Audience, type AudienceTarget, audienceTarget, countAudience } from './audience.ts';
import {
  claimCount,
  endCount,
  type KeptAudience,
  keepAudience,
  readKeptAudience,
} from './audienceQueries.ts';

export const AUDIENCE_QUEUE = 'campaigns.audience';

/**
 * Kept figures older than this are stale and counted again when read. Members join and leave a
 * segment all the time; a broadcast's author reads its audience while preparing it, minutes apart,
 * and ten minutes of drift in a million is far below what the figures are read for. Counting a
 * million again costs seconds of a database core, so not at every read.
 */
export const AUDIENCE_STALE_AFTER_MS = 10 * 60_000;
/** How long a count may run in the worker (pg-boss's expiry); at a million it takes seconds. */
const COUNT_EXPIRE_SECONDS = 120;
/**
 * A count asked for longer ago than this that has not ended is taken as lost (its worker died, or
 * the queue lost it) and may be asked for again: later than the job's expiry, so that a count
 * still running is never doubled.
 */
const COUNT_LOST_AFTER_MS = 2 * COUNT_EXPIRE_SECONDS * 1000;
/** What a 202 asks the client to wait before asking again. */
export const RECOUNT_RETRY_SECONDS = 5;

type Services = Pick<AppContext, 'db' | 'boss' | 'config'>;

/** What the figures depend on: figures counted for another basis are stale. */
async function basisOf(app: Services, workspaceId: string, target: AudienceTarget) {
  const segment = await segmentVersion(app.db, workspaceId, target.segmentId);
  if (!segment) throw new NotFoundError('Segment');
  const { frequencyCap, quietHours, timezone } = target.pacing;
  const basis = {
    segmentId: target.segmentId,
    segmentVersion: segment.updated_at,
    channel: target.channel,
    sendAt: target.sendAt,
    pacing: {
      frequencyCap: frequencyCap ?? null,
      quietHours: quietHours ?? null,
      timezone: timezone ?? null,
    },
  };
  return { basis, members: segment.members };
}

/** The figures with their time: counted now, or the kept ones. */
export type AudienceAnswer = Audience & { countedAt: string; stale: boolean; countingSince: string | null };
/** No figures yet: a count is under way. */
export type AudienceCounting = {
  campaignId: string;
  segmentId: string;
  members: number;
  countingSince: string;
};

/**
 * Queues a count of the campaign's audience unless one is under way; returns when the count under
 * way was asked for. The mark and the job are written in one transaction: one count at a time.
 */
async function queueCount(app: Services, workspaceId: string, campaignId: string): Promise<string> {
  return app.db.transaction(async (tx) => {
    const claimed = await claimCount(tx, workspaceId, campaignId, COUNT_LOST_AFTER_MS);
    if (claimed) {
      await app.boss.send(
        AUDIENCE_QUEUE,
        { workspaceId, campaignId },
        // The key names the campaign's counts among the queue's jobs.
        { db: transactionalDb(tx), singletonKey: `${workspaceId}/${campaignId}` },
      );
      return claimed;
    }
    const kept = await readKeptAudience(tx, workspaceId, campaignId, COUNT_LOST_AFTER_MS);
    return kept!.counting_since!;
  });
}

/**
 * The audience as GET …/audience answers it: `counted` with figures (counted now, or the kept ones
 * with their time), or `counting` when a larger audience has no kept figures yet (a count is queued).
 */
export async function audienceNow(
  app: Services,
  workspaceId: string,
  campaignId: string,
): Promise<{ counted: AudienceAnswer } | { counting: AudienceCounting }> {
  const target = await audienceTarget(app.db, workspaceId, campaignId);
  const { basis, members } = await basisOf(app, workspaceId, target);
  if (members <= app.config.CAMPAIGN_AUDIENCE_LIVE_LIMIT) {
    const countedAt = new Date().toISOString();
    const audience = await countAudience(app.db, workspaceId, target);
    return { counted: { ...audience, countedAt, stale: false, countingSince: null } };
  }
  const kept = await readKeptAudience(app.db, workspaceId, campaignId, COUNT_LOST_AFTER_MS);
  const stale =
    !kept?.result ||
    !isDeepStrictEqual(kept.basis, basis) ||
    Date.now() - new Date(kept.counted_at!).getTime() > AUDIENCE_STALE_AFTER_MS;
  let countingSince = underWay(kept);
  if (stale && !countingSince) countingSince = await queueCount(app, workspaceId, campaignId);
  if (!kept?.result)
    return { counting: { campaignId, segmentId: target.segmentId, members, countingSince: countingSince! } };
  return { counted: { ...kept.result, countedAt: kept.counted_at!, stale, countingSince } };
}

/** When the count under way was asked for; null when none is (or it was lost). */
function underWay(kept: KeptAudience | null): string | null {
  return kept?.counting_since && !kept.counting_lost ? kept.counting_since : null;
}

/** When the campaign's count under way was asked for; null when none is. */
export async function audienceCountingSince(db: Db, workspaceId: string, campaignId: string) {
  return underWay(await readKeptAudience(db, workspaceId, campaignId, COUNT_LOST_AFTER_MS));
}

/** Asks for a new count of the audience (one under way stands for it); what GET answers meanwhile. */
export async function recountAudience(app: Services, workspaceId: string, campaignId: string) {
  const target = await audienceTarget(app.db, workspaceId, campaignId);
  const { members } = await basisOf(app, workspaceId, target);
  const countingSince = await queueCount(app, workspaceId, campaignId);
  return { campaignId, segmentId: target.segmentId, members, countingSince } satisfies AudienceCounting;
}

/**
 * Counts the audience and keeps it with its time and basis. A campaign deleted since, or no longer
 * a broadcast that sends, has nothing to count; a failed count ends too, so that the next read asks
 * again rather than waiting for a count that is not coming.
 */
export async function countAndKeepAudience(app: Services, workspaceId: string, campaignId: string) {
  const countedAt = new Date().toISOString();
  try {
    const target = await audienceTarget(app.db, workspaceId, campaignId);
    const { basis } = await basisOf(app, workspaceId, target);
    const result = await countAudience(app.db, workspaceId, target);
    await keepAudience(app.db, workspaceId, campaignId, { result, basis, countedAt });
  } catch (error) {
    await endCount(app.db, workspaceId, campaignId);
    if (error instanceof NotFoundError || error instanceof ConflictError) return;
    throw error;
  }
}

const Payload = z.object({ workspaceId: z.string(), campaignId: z.string() });

export const audienceJob: JobDefinition<z.infer<typeof Payload>> = {
  name: AUDIENCE_QUEUE,
  // One count per campaign at a time is the row's mark (queueCount), not a queue policy: the job
  // clears the mark when its count ends, before pg-boss marks the job done, and a policy would refuse
  // the next count asked for in between. notify: the worker starts it at once, not at its next poll.
  queue: { retryLimit: 0, expireInSeconds: COUNT_EXPIRE_SECONDS, notify: true },
  handler: async (context: AppContext, jobs) => {
    for (const job of jobs) {
      const { workspaceId, campaignId } = Payload.parse(job.data);
      await runAsWorkspace(workspaceId, () => countAndKeepAudience(context, workspaceId, campaignId));
    }
  },
};
