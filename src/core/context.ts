// What every request handler, job and command can reach: the pool, configuration, logger and queue.
// It sits in the core kit, below http, jobs and db, because web, worker and CLI all hand it around.
import type { PgBoss } from 'pg-boss';
import type { DatabasePool } from 'slonik';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';

/** An API key as authentication needs it. */
export type PresentedKey = { id: string; workspace_id: string; scopes: readonly string[] };

/**
 * How authentication finds the API key a request presents. The apiKeys feature provides it and the
 * composition layer puts it here, so the kits know no feature.
 */
export type ApiKeyLookup = {
  /** The live key with this secret; null when it is malformed, unknown, revoked or expired. */
  find: (db: DatabasePool, key: string) => Promise<PresentedKey | null>;
  /** Notes that the key was used (last_used_at); never fails the request. */
  used: (app: AppContext, key: { workspace_id: string; id: string }) => void;
};

/**
 * What a feature needs done by a feature above it, which it may not import. Empty here: each such
 * feature adds its entry by declaration merging (e.g. src/accounts/hooks.ts), the feature above
 * provides it (its feature.effects), and the composition layer gathers them onto every context
 * (featureEffects in src/app/features.ts), so no feature keeps the function in module state.
 */
// biome-ignore lint/suspicious/noEmptyInterface: features add their entries by declaration merging.
export interface FeatureEffects {}

export type AppContext = {
  db: DatabasePool;
  config: Config;
  log: Logger;
  /** The job queue; web processes use it to enqueue, workers also to work. */
  boss: PgBoss;
  version: string;
  databaseUrl: string;
  apiKeys: ApiKeyLookup;
  effects: FeatureEffects;
};
