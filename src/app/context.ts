// What every process of the service shares: the database pool, the job queue and the wiring of
// the features to one another (effects.ts). Web, worker and the test server all start here.
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import { migrate } from '../db/migrate.ts';
import { createDatabasePool } from '../db/pool.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { shareByWorkspace } from '../db/workspaceShare.ts';
import { type Boss, createBoss } from '../jobs/boss.ts';
import { createLogger } from '../log.ts';
import { installKeyRing } from '../secrets/index.ts';
import { VERSION } from '../version.ts';
import { featureEffects, installFeatureEffects } from './effects.ts';
import { accounts, apiKeys, campaigns, channels, events, segments } from './features.ts';
import { createQueues } from './jobs.ts';
import { sealClearSecrets } from './secretStores.ts';

/**
 * Applies SQL migrations, seals what they left in clear text, makes the event partitions of the
 * months ahead, and installs or upgrades the pg-boss schema.
 */
export async function migrateAll(databaseUrl: string, settings: Config): Promise<string[]> {
  configureProcess(settings);
  const applied = await migrate(databaseUrl);
  const db = await createDatabasePool(databaseUrl, { maxPoolSize: 1 });
  try {
    await sealClearSecrets(db);
    await events.ensureEventPartitions(db, settings.EVENT_PARTITIONS_AHEAD_MONTHS);
  } finally {
    await db.end();
  }
  const boss = createBoss(databaseUrl, 'cli');
  await boss.start();
  await boss.stop({ graceful: false });
  return applied;
}

export async function createContext(
  config: Config,
  databaseUrl: string,
  role: 'web' | 'worker' | 'cli',
  log = createLogger(config.LOG_LEVEL),
): Promise<AppContext> {
  installFeatureEffects();
  configureProcess(config);
  const pool = await createDatabasePool(databaseUrl, {
    maxPoolSize: config.DATABASE_POOL_SIZE,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_MS,
    // Web and worker statements all run under the statement timeout, which the query timeout
    // exceeds; the CLI's (imports) may lift it, so a CLI pool has no client-side bound.
    queryTimeoutMs: role === 'cli' ? undefined : config.DATABASE_QUERY_TIMEOUT_MS,
  });
  accounts.limitPasswordHashing({
    concurrency: config.PASSWORD_HASH_CONCURRENCY,
    queue: config.PASSWORD_HASH_QUEUE,
  });
  const db = shareByWorkspace(pool, config.WORKSPACE_POOL_SHARE);
  const boss = createBoss(databaseUrl, role, Math.ceil(config.JOB_SUPERVISE_MS / 1000));
  // A restart or failover of the database is expected now and then: pg-boss reconnects by itself.
  boss.on('error', (error) =>
    isDatabaseUnavailable(error)
      ? log.warn({ err: error }, 'pg-boss: database connection lost; reconnecting')
      : log.error({ err: error }, 'pg-boss error'),
  );
  await boss.start();
  // Enrollments are made deep in ingest and contact writes: their first step's job goes through this.
  releaseStepQueue.set(boss, campaigns.registerStepQueue(boss));
  const context: AppContext = {
    db,
    config,
    log,
    boss,
    version: VERSION,
    databaseUrl,
    apiKeys: apiKeys.apiKeyLookup,
    effects: featureEffects(),
  };
  await createQueues(context);
  return context;
}

/**
 * What features read outside any request or job, handed the configuration here rather than
 * parsing it themselves: the key ring of secrets at rest, and the rule limits the rule schema checks.
 */
function configureProcess(settings: Config): void {
  installKeyRing(settings);
  segments.useRuleCostLimits(settings);
}

const releaseStepQueue = new WeakMap<Boss, () => void>();

export async function closeContext(context: AppContext): Promise<void> {
  releaseStepQueue.get(context.boss)?.();
  // Pooled SMTP connections first: they hold sockets, not database connections.
  await channels.shutdown();
  await context.boss.stop({ graceful: true, timeout: context.config.SHUTDOWN_TIMEOUT_MS, close: true });
  await context.db.end();
}
