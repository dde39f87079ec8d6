// What every process of the service shares: the database pool, the job queue and the wiring of
// the features to one another (their effects). Web, worker and the test server all start here;
// each step that involves features runs over the one list of src/app/features.ts.
import type { Config } from '../config.ts';
import type { AppContext } from '../core/context.ts';
import { migrate } from '../db/migrate.ts';
import { createDatabasePool } from '../db/pool.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { shareByWorkspace } from '../db/workspaceShare.ts';
import type { Release } from '../feature/definition.ts';
import { createBoss } from '../jobs/boss.ts';
import { createLogger } from '../log.ts';
import { installKeyRing } from '../secrets/index.ts';
import { VERSION } from '../version.ts';
import { apiKeyLookup, FEATURES, featureEffects } from './features.ts';
import { createQueues } from './jobs.ts';

/**
 * Applies SQL migrations, then what each feature does after them (in list order: webhooks seal
 * the secrets a migration left in clear text, events make the partitions of the months ahead),
 * and installs or upgrades the pg-boss schema.
 */
export async function migrateAll(databaseUrl: string, settings: Config): Promise<string[]> {
  configureProcess(settings);
  const applied = await migrate(databaseUrl);
  const db = await createDatabasePool(databaseUrl, { maxPoolSize: 1 });
  try {
    for (const feature of FEATURES) await feature.afterMigrate?.(db, settings);
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
  const db = shareByWorkspace(pool, config.WORKSPACE_POOL_SHARE);
  const boss = createBoss(databaseUrl, role, Math.ceil(config.JOB_SUPERVISE_MS / 1000));
  // A restart or failover of the database is expected now and then: pg-boss reconnects by itself.
  boss.on('error', (error) =>
    isDatabaseUnavailable(error)
      ? log.warn({ err: error }, 'pg-boss: database connection lost; reconnecting')
      : log.error({ err: error }, 'pg-boss error'),
  );
  await boss.start();
  const context: AppContext = {
    db,
    config,
    log,
    boss,
    version: VERSION,
    databaseUrl,
    apiKeys: apiKeyLookup(),
    effects: featureEffects(),
  };
  releases.set(
    context,
    FEATURES.flatMap((feature) => (feature.attach ? [feature.attach(context)] : [])),
  );
  await createQueues(context);
  return context;
}

/**
 * What features read outside any request or job, handed the configuration here rather than
 * parsing it themselves: the key ring of secrets at rest, and each feature's `configure` (the rule
 * limits the rule schema checks, the password hashing queue).
 */
function configureProcess(settings: Config): void {
  installKeyRing(settings);
  for (const feature of FEATURES) feature.configure?.(settings);
}

/** What each feature set up for a context (`attach`), undone when it closes. */
const releases = new WeakMap<AppContext, Release[]>();

export async function closeContext(context: AppContext): Promise<void> {
  // The features' releases first (the step queue, pooled SMTP sockets), newest first, then the
  // queue and the database they may still have used.
  for (const release of (releases.get(context) ?? []).toReversed()) await release();
  await context.boss.stop({ graceful: true, timeout: context.config.SHUTDOWN_TIMEOUT_MS, close: true });
  await context.db.end();
}
