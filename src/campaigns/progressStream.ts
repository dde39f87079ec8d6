// The live figures of broadcasts being watched, for the console's server-sent events: one ticker
// per campaign however many people watch it, reading the progress statement (progress.ts) once a
// tick and handing the same figures to every viewer. The ticker starts with the first viewer and
// stops with the last, or when the broadcast finishes. Its samples give the recent rate (over the
// last RECENT_MS), which the API, answering single requests, cannot know.
import type { Db } from '../db/pool.ts';
import type { Logger } from '../log.ts';
import {
  averageRate,
  type CampaignProgress,
  type ProgressRow,
  progressOf,
  readProgressRow,
} from './progress.ts';

/** How often a watched broadcast's figures are read. */
export const TICK_MS = 1_000;
/** The window of the recent rate. */
const RECENT_MS = 10_000;

type Sample = { at: number; sent: number; settled: number };
/** The figures of a tick; null once the campaign is gone (deleted). */
export type Viewer = (progress: CampaignProgress | null) => void;

type Watch = {
  key: string;
  viewers: Set<Viewer>;
  samples: Sample[];
  last: CampaignProgress | null | undefined;
  timer: NodeJS.Timeout | undefined;
  reading: boolean;
};

/** The rate over the samples of the window, once there are two a second apart; else the average. */
function recentRate(samples: readonly Sample[], row: ProgressRow, sent: number, settled: number) {
  const first = samples[0];
  const last = samples.at(-1);
  if (row.finished_at || !first || !last || last.at - first.at < 1_000)
    return averageRate(row, sent, settled);
  const seconds = (last.at - first.at) / 1000;
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    sentPerSecond: round((last.sent - first.sent) / seconds),
    settledPerSecond: round((last.settled - first.settled) / seconds),
    over: 'recent' as const,
  };
}

export type ProgressHub = {
  /** Calls `viewer` with each tick's figures until the returned function is called. */
  watch: (workspaceId: string, campaignId: string, viewer: Viewer) => () => void;
  /** How many broadcasts are being read (tests and the bench look). */
  watched: () => number;
};

export function progressHub(db: Db, log: Logger, tickMs = TICK_MS): ProgressHub {
  const watches = new Map<string, Watch>();

  const stop = (watch: Watch) => {
    clearTimeout(watch.timer);
    watches.delete(watch.key);
  };

  const tick = async (watch: Watch, workspaceId: string, campaignId: string) => {
    if (watch.reading) return;
    watch.reading = true;
    try {
      const row = await readProgressRow(db, workspaceId, campaignId);
      if (row) {
        const sent = row.counts.sent ?? 0;
        const settled = ['sent', 'failed', 'bounced', 'suppressed'].reduce(
          (n, s) => n + (row.counts[s] ?? 0),
          0,
        );
        const at = Date.parse(row.as_of);
        watch.samples.push({ at, sent, settled });
        while (watch.samples.length > 2 && at - watch.samples[0]!.at > RECENT_MS) watch.samples.shift();
        watch.last = progressOf(campaignId, row, recentRate(watch.samples, row, sent, settled));
      } else watch.last = null;
      for (const viewer of watch.viewers) viewer(watch.last);
    } catch (error) {
      log.warn({ err: error, campaignId }, 'reading a broadcast progress failed; next tick retries');
    } finally {
      watch.reading = false;
    }
    if (watch.last === null || watch.last?.state === 'finished') return stop(watch);
    if (watch.viewers.size > 0 && watches.get(watch.key) === watch)
      watch.timer = setTimeout(() => tick(watch, workspaceId, campaignId), tickMs).unref();
  };

  return {
    watch(workspaceId, campaignId, viewer) {
      const key = `${workspaceId} ${campaignId}`;
      let watch = watches.get(key);
      if (!watch) {
        watch = { key, viewers: new Set(), samples: [], last: undefined, timer: undefined, reading: false };
        watches.set(key, watch);
        watch.viewers.add(viewer);
        void tick(watch, workspaceId, campaignId);
      } else {
        watch.viewers.add(viewer);
        if (watch.last !== undefined) viewer(watch.last);
      }
      const current = watch;
      return () => {
        current.viewers.delete(viewer);
        if (current.viewers.size === 0) stop(current);
      };
    },
    watched: () => watches.size,
  };
}
