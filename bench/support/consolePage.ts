// What bench:console loads: its seeded workspace (the fixture) and its pages, each with the paths
// the load cycles through and the page's main query run bare (bench/console.ts,
// bench/consolePartTwo.ts).
import type { AppContext } from '../../src/core/context.ts';
import type { SeededCampaign } from '../messagesSeed.ts';
import type { PartTwoFixture } from '../partTwoSeed.ts';

export type Fixture = {
  workspaceId: string;
  contacts: number;
  messages: number;
  /** The campaigns of bench/messagesSeed.ts, with their messages. */
  campaigns: SeededCampaign[];
  partTwo: PartTwoFixture;
};

export type Page = {
  name: string;
  /** Paths under /app/{workspaceId} (or under /app itself when they start with /app/), cycled through by the load. */
  paths: (f: Fixture) => string[];
  /** The page's main query, as the page runs it, for one of its paths; none for a page that reads nothing. */
  bare?: (context: AppContext, f: Fixture, path: string) => Promise<unknown>;
};

/** The query string of a path, as an object (the last value of a repeated key). */
export const queryOf = (path: string) => Object.fromEntries(new URLSearchParams(path.split('?')[1] ?? ''));

/** The segment `index` of a path without its query (`/campaigns/cmp_x/report` → 1: `cmp_x`). */
export const segmentOf = (path: string, index: number) =>
  decodeURIComponent(path.split('?')[0]!.split('/')[index + 1] ?? '');

/** The seed's contact number n (bench/segmentsSeed.ts). */
export const contactId = (n: number) => `ct_bench${String(n).padStart(8, '0')}`;

/** Numbers spread over the seeded contacts, so that the load does not read one row again and again. */
export const spread = (f: Pick<Fixture, 'contacts'>, count: number) =>
  Array.from({ length: count }, (_, i) => 1 + Math.floor(((i + 0.5) * f.contacts) / count));
