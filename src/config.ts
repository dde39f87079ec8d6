// The only reader of process.env. Every variable is parsed once, with zod; a bad value stops
// start-up with a message that names the variable. `.env.example` documents each one.
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

// Each helper's message says what the variable must be; parseConfig puts the variable's name first.
const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], {
    error: 'must be true or false (or 1/0, yes/no)',
  })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** A whole number in [min, max], written in digits ("abc", "1.5" and "1e3" are refused by name). */
function wholeNumber(min: number, max?: number, unit = '') {
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  return z
    .string({ error: `must be a whole number${unit} ${range}` })
    .trim()
    .refine(
      (value) =>
        /^\d+$/.test(value) && Number(value) >= min && Number(value) <= (max ?? Number.MAX_SAFE_INTEGER),
      `must be a whole number${unit} ${range}`,
    )
    .transform(Number);
}

const durationMs = (fallback: number) => wholeNumber(1, undefined, ' of milliseconds').default(fallback);

const positiveDecimal = z
  .string()
  .trim()
  .refine(
    (value) => /^\d+(\.\d+)?$/.test(value) && Number(value) > 0,
    'must be a number above 0, e.g. 5 or 0.5',
  )
  .transform(Number);

const secondsList = z
  .string()
  .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'must be comma-separated whole seconds, e.g. 0,5,300')
  .transform((value) => value.split(',').map((part) => Number(part.trim())));

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(', ')}` });
}

/**
 * A regular expression that must match a whole value (anchored here, so `amazonaws\.com` cannot
 * match `amazonaws.com.evil.example`), compiled once so a bad one stops start-up by name.
 */
const wholeMatch = z.string().transform((source, ctx) => {
  try {
    return new RegExp(`^(?:${source})$`, 'i');
  } catch {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a regular expression, e.g. ^sns\\.[a-z0-9-]+\\.amazonaws\\.com$',
    });
    return z.NEVER;
  }
});

/** Five cron fields, read by the parser pg-boss schedules with, so what passes here will run. */
const cronExpression = z.string().refine((value) => {
  if (value.trim().split(/\s+/).length !== 5) return false;
  try {
    CronExpressionParser.parse(value, { tz: 'UTC', strict: false });
    return true;
  } catch {
    return false;
  }
}, 'must be a cron expression of five fields (minute hour day month weekday), e.g. "* * * * *" for every minute or "*/5 * * * *"');

/**
 * One or more AES-256 keys, comma-separated, each 32 bytes as 64 hex digits or base64; the first
 * encrypts, every one decrypts (so a new key can go first while rows written under the old remain).
 */
const encryptionKeys = z
  .string()
  .transform((value) => value.split(',').map((part) => part.trim()))
  .transform((parts, context) => {
    const keys = parts.map((part) =>
      /^[0-9a-fA-F]{64}$/.test(part) ? Buffer.from(part, 'hex') : Buffer.from(part, 'base64'),
    );
    if (keys.some((key) => key.length !== 32)) {
      context.addIssue({
        code: 'custom',
        message: 'must be 32 bytes as 64 hex digits or base64 (comma-separated when several)',
      });
      return z.NEVER;
    }
    return keys;
  });

/** Comma-separated secrets, the first signs and every one verifies (rotation). */
const secretList = z
  .string()
  .transform((value) => value.split(',').map((part) => part.trim()))
  .refine((parts) => parts.every((part) => part.length >= 32), {
    message: 'must be secrets of at least 32 characters each, comma-separated when several',
  });

const hostList = z.string().transform((value) =>
  value
    .split(',')
    .map((host) =>
      host
        .trim()
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1'),
    )
    .filter(Boolean),
);

/** OWASP's argon2id memory for passwords, in KiB: the default, and the least production accepts. */
export const OWASP_MEMORY_KIB = 19_456;

const environmentSchema = z.object({
  NODE_ENV: oneOf(['development', 'test', 'production']).default('development'),
  PORT: wholeNumber(0, 65535).default(3000),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' })
    .optional(),
  DATABASE_POOL_SIZE: wholeNumber(1, 200).default(10),
  DATABASE_CONNECT_TIMEOUT_MS: durationMs(5_000),
  DATABASE_ACQUIRE_TIMEOUT_MS: durationMs(5_000),
  DATABASE_STATEMENT_TIMEOUT_MS: durationMs(15_000),
  // Unset: DATABASE_STATEMENT_TIMEOUT_MS + 2 s (parseConfig).
  DATABASE_QUERY_TIMEOUT_MS: wholeNumber(1, undefined, ' of milliseconds').optional(),
  INGEST_MAX_WAIT_MS: wholeNumber(100, 600_000, ' of milliseconds').default(15_000),
  // Past a few thousand levels, recursive code (and PostgreSQL's jsonb parser) runs out of stack.
  JSON_MAX_DEPTH: wholeNumber(2, 1000).default(32),
  JSON_MAX_ARRAY_ITEMS: wholeNumber(1000, undefined, ' (a batch holds up to 1000 events)').default(10_000),
  JSON_MAX_OBJECT_KEYS: wholeNumber(1).default(1000),
  DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_PG_PORT: wholeNumber(1, 65535).default(54329),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SESSION_IDLE_TIMEOUT_MINUTES: wholeNumber(1).default(60 * 24),
  SESSION_ABSOLUTE_TIMEOUT_HOURS: wholeNumber(1).default(24 * 14),
  SIGNIN_MAX_FAILURES_PER_EMAIL: wholeNumber(1).default(10),
  SIGNIN_MAX_FAILURES_PER_IP: wholeNumber(1).default(50),
  SIGNIN_WINDOW_MINUTES: wholeNumber(1).default(15),
  SIGNIN_MAX_FAILURES_PER_EMAIL_ALL_IPS: wholeNumber(1).default(100),
  REGISTRATION_MAX_PER_IP: wholeNumber(1).default(20),
  REGISTRATION_WINDOW_MINUTES: wholeNumber(1).default(60),
  PASSWORD_HASH_CONCURRENCY: wholeNumber(1, 64).default(2),
  PASSWORD_HASH_QUEUE: wholeNumber(0, 100_000).default(64),
  // argon2id's memory per new hash; lower only to make test runs fast (refused in production).
  PASSWORD_HASH_MEMORY_KIB: wholeNumber(8, 1_048_576, ' of KiB').default(OWASP_MEMORY_KIB),
  INVITATION_EXPIRY_DAYS: wholeNumber(1, 365).default(14),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Unset: readable lines on a terminal, JSON (one object a line) anywhere else.
  LOG_FORMAT: oneOf(['json', 'pretty']).optional(),
  TRUST_PROXY: booleanFlag.optional(),
  PUBLIC_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be an http:// or https:// URL, e.g. https://switchboard.example.com',
    })
    .optional(),
  WEBHOOK_TIMEOUT_MS: durationMs(15_000),
  WEBHOOK_RETRY_SCHEDULE: secondsList.default([0, 5, 300, 1800, 7200, 18000, 36000, 36000]),
  // One switch for every outbound target (webhook URLs, SMTP hosts); WEBHOOK_… is its old name.
  ALLOW_PRIVATE_TARGETS: booleanFlag.optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanFlag.optional(),
  SMTP_ALLOWED_HOSTS: hostList.default([]),
  SMTP_TIMEOUT_MS: durationMs(15_000),
  ENCRYPTION_KEY: encryptionKeys.optional(),
  WEBHOOK_ALLOW_HTTP: booleanFlag.optional(),
  WEBHOOK_DISABLE_AFTER_DAYS: positiveDecimal.default(5),
  WEBHOOK_CONCURRENCY: wholeNumber(1, 1000).default(64),
  WEBHOOK_ENDPOINT_CONCURRENCY: wholeNumber(1, 1000).optional(),
  WEBHOOK_LEASE_MS: wholeNumber(500, undefined, ' of milliseconds').optional(),
  WEBHOOK_INBOUND_REPLAY_WINDOW_SECONDS: wholeNumber(0, 90 * 24 * 3600, ' of seconds').default(24 * 3600),
  SEGMENT_REFRESH_CRON: cronExpression.default('* * * * *'),
  SEGMENT_RULE_MAX_DEPTH: wholeNumber(1, 10).default(5),
  SEGMENT_RULE_MAX_CONDITIONS: wholeNumber(1, 1_000).default(50),
  SEGMENT_RULE_MAX_EVENT_CONDITIONS: wholeNumber(0, 1_000).default(10),
  SEGMENT_RULE_MAX_WHERE: wholeNumber(0, 10_000).default(20),
  SEGMENTS_PER_WORKSPACE: wholeNumber(1, 100_000).default(100),
  SEGMENT_COMPUTE_PAGE_SIZE: wholeNumber(10, 100_000).default(1_000),
  CAMPAIGN_BROADCAST_PAGE_SIZE: wholeNumber(1, 100_000).default(1_000),
  CAMPAIGN_STEP_EXPIRE_SECONDS: wholeNumber(1, 86_400, ' of seconds').default(60),
  JOB_SUPERVISE_SECONDS: wholeNumber(1, 3_600, ' of seconds').default(60),
  SEGMENT_REFRESH_ROWS_PER_WORKSPACE: wholeNumber(10).default(50_000),
  // `switchboard import`: memory PostgreSQL may use for the merge's sorts, hashes and temporary
  // tables (work_mem, maintenance_work_mem and temp_buffers of its transaction).
  IMPORT_WORK_MEM_MB: wholeNumber(4, 65_536, ' of megabytes').default(256),
  // `switchboard import`: how many threads check an NDJSON file's rows, the main one included
  // (unset: one a core, at most 4; src/imports/checkThreads.ts).
  IMPORT_CHECKERS: wholeNumber(1, 64).optional(),
  // Events are partitioned by month (sql/0031): how many months ahead partitions are made.
  EVENT_PARTITIONS_AHEAD_MONTHS: wholeNumber(1, 24, ' of months').default(3),
  SEGMENT_REFRESH_MS_PER_WORKSPACE: durationMs(10_000),
  WORKSPACE_POOL_SHARE: wholeNumber(1, 200).default(5),
  WORKSPACE_POOL_WAIT_MS: wholeNumber(0, 60_000, ' of milliseconds').default(2_000),
  SHUTDOWN_TIMEOUT_MS: durationMs(30_000),
  // Seconds before each retry of a send the provider deferred (4xx, network error); then failed.
  MESSAGE_RETRY_SCHEDULE: secondsList.default([300, 1800, 7200, 21600]),
  // How long a claimed send may take before the sweep marks it interrupted (never resent); longer
  // than any provider call can last.
  MESSAGE_SEND_LEASE_SECONDS: wholeNumber(5, 86_400, ' of seconds').default(900),
  // A send job a killed worker took is retried after this; the claim makes a retry safe (it sends
  // only what nobody claimed), so it can be short: a message is never left queued for long.
  MESSAGE_SEND_JOB_EXPIRE_SECONDS: wholeNumber(30, 86_400, ' of seconds').default(300),
  // Sends in flight per workspace and channel per worker: a message is rendered when one of these
  // is free, so a broadcast keeps the pooled connections busy without holding hundreds rendered.
  MESSAGE_SENDS_IN_FLIGHT: wholeNumber(1, 1_000).default(20),
  // Web push: browsers hand us subscription endpoints, so only the known push services are
  // reachable unless this is set (a local push service in development and tests; never production).
  PUSH_ALLOW_ANY_ENDPOINT: booleanFlag.default(false),
  // Extra certificate authorities (PEM file) trusted for push services, beside the usual ones.
  PUSH_CA_FILE: z.string().min(1).optional(),
  // How long a push service keeps an undelivered notification when the step names no TTL (28 days at most).
  PUSH_TTL_SECONDS: wholeNumber(0, 2_419_200, ' of seconds').default(86_400),
  PUSH_TIMEOUT_MS: durationMs(15_000),
  // Public (publishable-key) endpoints: requests per window per key and per client address.
  PUBLIC_RATE_WINDOW_SECONDS: wholeNumber(1, 3_600, ' of seconds').default(60),
  PUBLIC_RATE_LIMIT_PER_KEY: wholeNumber(1).default(600),
  PUBLIC_RATE_LIMIT_PER_IP: wholeNumber(1).default(120),
  // Hosted form submissions per client address per PUBLIC_RATE_WINDOW_SECONDS.
  FORM_RATE_LIMIT_PER_IP: wholeNumber(1).default(10),
  // Double opt-in confirmations: one per address and form while pending within this window, and at
  // most FORM_CONFIRMATIONS_PER_ADDRESS per address across a workspace's forms in it.
  FORM_CONFIRMATION_WINDOW_HOURS: wholeNumber(1, 720, ' of hours').default(24),
  FORM_CONFIRMATIONS_PER_ADDRESS: wholeNumber(1, 100).default(3),
  // Provider feedback: the hosts SNS signing certificates and subscription URLs may come from
  // (host[:port] of an https URL; tests point it at a local server), how long those fetches may
  // take, and how many soft bounces in a row suppress an address.
  SNS_CERT_HOST_PATTERN: wholeMatch.default(/^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/i),
  SNS_FETCH_TIMEOUT_MS: durationMs(10_000),
  FEEDBACK_SOFT_BOUNCE_LIMIT: wholeNumber(1, 100).default(3),
  // Signs open and click tracking links; unset: derived from the session secret.
  TRACKING_SECRET: secretList.optional(),
  // A hit sooner than this after the send is a machine's (gateways fetch mail on arrival).
  TRACKING_MIN_SECONDS_AFTER_SEND: wholeNumber(0, 3_600, ' of seconds').default(5),
  // The Bot API server: Telegram's, or a local Bot API server (and the tests' fake).
  TELEGRAM_API_ROOT: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, e.g. https://api.telegram.org' })
    .transform((value) => value.replace(/\/+$/, ''))
    .default('https://api.telegram.org'),
  TELEGRAM_TIMEOUT_MS: durationMs(15_000),
  // How long a contact's https://t.me/<bot>?start=<token> link stays usable.
  TELEGRAM_LINK_TTL_MINUTES: wholeNumber(1, 43_200, ' of minutes').default(1_440),
  // Requests to the public unsubscribe pages (/u/{token}, GET and POST together) per client address
  // per window. Generous: mailbox providers send one-click POSTs for many people from few addresses.
  UNSUBSCRIBE_MAX_REQUESTS_PER_IP: wholeNumber(1).default(300),
  UNSUBSCRIBE_WINDOW_SECONDS: wholeNumber(1, 86_400, ' of seconds').default(60),
  // Retention: how long growing tables keep their rows (src/app/retention.ts lists every rule).
  RETENTION_WEBHOOK_DELIVERIES_DAYS: wholeNumber(1, 3_650, ' of days').default(30),
  RETENTION_JOBS_DAYS: wholeNumber(1, 3_650, ' of days').default(7),
  // Unset: kept for ever (the operator's choice to make).
  RETENTION_EVENTS_DAYS: wholeNumber(1, 36_500, ' of days').optional(),
  RETENTION_MESSAGES_DAYS: wholeNumber(1, 36_500, ' of days').optional(),
  RETENTION_SCORE_HISTORY_DAYS: wholeNumber(1, 36_500, ' of days').optional(),
  RETENTION_TRACKING_HITS_DAYS: wholeNumber(1, 36_500, ' of days').optional(),
  RETENTION_CRON: cronExpression.default('*/15 * * * *'),
  RETENTION_BATCH_SIZE: wholeNumber(10, 100_000).default(1_000),
});

export type Config = Omit<
  z.infer<typeof environmentSchema>,
  'ALLOW_PRIVATE_TARGETS' | 'WEBHOOK_ALLOW_PRIVATE_TARGETS' | 'DATABASE_QUERY_TIMEOUT_MS' | 'LOG_FORMAT'
> & {
  /** Client-side bound on a query of the web and worker pools (db/queryTimeout.ts). */
  DATABASE_QUERY_TIMEOUT_MS: number;
  /** How the log is written: readable lines for a person at a terminal, JSON for machines. */
  LOG_FORMAT: 'json' | 'pretty';
  /** Whether customer-supplied targets may be private or loopback addresses (never in production). */
  ALLOW_PRIVATE_TARGETS: boolean;
  trustProxy: boolean;
  webhookAllowHttp: boolean;
};

export class ConfigError extends Error {}

/**
 * The client-side query bound must exceed the statement timeout: a slow statement is then ended by
 * PostgreSQL (its connection stays usable), and the client gives up only on a server that no longer
 * answers. Cut first by the client, a statement would run on in a backend nobody waits for.
 */
function queryTimeout(parsed: z.infer<typeof environmentSchema>): number {
  const statement = parsed.DATABASE_STATEMENT_TIMEOUT_MS;
  const query = parsed.DATABASE_QUERY_TIMEOUT_MS ?? statement + 2_000;
  if (query <= statement) {
    throw new ConfigError(
      `Invalid configuration:\n  DATABASE_QUERY_TIMEOUT_MS: must be longer than DATABASE_STATEMENT_TIMEOUT_MS (${statement}), so that PostgreSQL ends a slow statement first`,
    );
  }
  return query;
}

export function parseConfig(environment: NodeJS.ProcessEnv): Config {
  // Empty strings count as unset, as they do in most .env tooling.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ''));
  const result = environmentSchema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const parsed = result.data;
  const production = parsed.NODE_ENV === 'production';
  if (production && !parsed.SESSION_SECRET) {
    throw new ConfigError(
      'Invalid configuration:\n  SESSION_SECRET: required in production (at least 32 characters)',
    );
  }
  if (production && !parsed.ENCRYPTION_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  ENCRYPTION_KEY: required in production (32 bytes as 64 hex digits or base64)',
    );
  }
  const allowPrivate = parsed.ALLOW_PRIVATE_TARGETS ?? parsed.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? false;
  if (production && allowPrivate) {
    const name =
      parsed.ALLOW_PRIVATE_TARGETS === undefined ? 'WEBHOOK_ALLOW_PRIVATE_TARGETS' : 'ALLOW_PRIVATE_TARGETS';
    throw new ConfigError(
      `Invalid configuration:\n  ${name}: may not be true in production (SSRF protection)`,
    );
  }
  if (production && parsed.PASSWORD_HASH_MEMORY_KIB < OWASP_MEMORY_KIB) {
    throw new ConfigError(
      `Invalid configuration:\n  PASSWORD_HASH_MEMORY_KIB: may not be below ${OWASP_MEMORY_KIB} in production (OWASP's argon2id minimum)`,
    );
  }
  if (production && parsed.PUSH_ALLOW_ANY_ENDPOINT) {
    throw new ConfigError(
      'Invalid configuration:\n  PUSH_ALLOW_ANY_ENDPOINT: may not be true in production (SSRF protection)',
    );
  }
  // The old name is read above and not carried on: features read ALLOW_PRIVATE_TARGETS only.
  const { WEBHOOK_ALLOW_PRIVATE_TARGETS: _oldName, ...settings } = parsed;
  return {
    ...settings,
    DATABASE_QUERY_TIMEOUT_MS: queryTimeout(parsed),
    ALLOW_PRIVATE_TARGETS: allowPrivate,
    LOG_FORMAT: parsed.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    trustProxy: parsed.TRUST_PROXY ?? production,
    webhookAllowHttp: parsed.WEBHOOK_ALLOW_HTTP ?? !production,
  };
}

let current: Config | undefined;

/** The process-wide configuration, parsed on first use. */
export function config(): Config {
  current ??= parseConfig(process.env);
  return current;
}

/** Exits with the message when configuration is invalid: for the entry points in bin/. */
export function configOrExit(): Config {
  try {
    return config();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
