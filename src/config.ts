// The only reader of process.env. Every variable is parsed once, with zod; a bad value stops
// start-up with a message that names the variable. `.env.example` documents each one.
import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const durationMs = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const secondsList = z
  .string()
  .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'must be comma-separated whole seconds, e.g. 0,5,300')
  .transform((value) => value.split(',').map((part) => Number(part.trim())));

const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  INGEST_MAX_WAIT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SESSION_IDLE_TIMEOUT_MINUTES: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 24),
  SESSION_ABSOLUTE_TIMEOUT_HOURS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 14),
  SIGNIN_MAX_FAILURES_PER_EMAIL: z.coerce.number().int().positive().default(10),
  SIGNIN_MAX_FAILURES_PER_IP: z.coerce.number().int().positive().default(50),
  SIGNIN_WINDOW_MINUTES: z.coerce.number().int().positive().default(15),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: booleanFlag.optional(),
  PUBLIC_URL: z.url().optional(),
  WEBHOOK_TIMEOUT_MS: durationMs(15_000),
  WEBHOOK_RETRY_SCHEDULE: secondsList.default([0, 5, 300, 1800, 7200, 18000, 36000, 36000]),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanFlag.default(false),
  WEBHOOK_ALLOW_HTTP: booleanFlag.optional(),
  WEBHOOK_DISABLE_AFTER_DAYS: z.coerce.number().positive().default(5),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(500).optional(),
  SEGMENT_REFRESH_CRON: z.string().min(9).default('* * * * *'),
  SEGMENT_RULE_MAX_DEPTH: z.coerce.number().int().min(1).max(10).default(5),
  SEGMENT_RULE_MAX_CONDITIONS: z.coerce.number().int().min(1).max(1_000).default(50),
  SEGMENT_RULE_MAX_EVENT_CONDITIONS: z.coerce.number().int().min(0).max(1_000).default(10),
  SEGMENT_RULE_MAX_WHERE: z.coerce.number().int().min(0).max(10_000).default(20),
  SEGMENTS_PER_WORKSPACE: z.coerce.number().int().min(1).max(100_000).default(100),
  SEGMENT_COMPUTE_PAGE_SIZE: z.coerce.number().int().min(10).max(100_000).default(1_000),
  SEGMENT_REFRESH_ROWS_PER_WORKSPACE: z.coerce.number().int().min(10).default(50_000),
  SEGMENT_REFRESH_MS_PER_WORKSPACE: durationMs(10_000),
  WORKSPACE_POOL_SHARE: z.coerce.number().int().min(1).max(200).default(5),
  WORKSPACE_POOL_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  SHUTDOWN_TIMEOUT_MS: durationMs(30_000),
});

export type Config = z.infer<typeof environmentSchema> & {
  trustProxy: boolean;
  webhookAllowHttp: boolean;
};

export class ConfigError extends Error {}

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
  if (production && parsed.WEBHOOK_ALLOW_PRIVATE_TARGETS) {
    throw new ConfigError(
      'Invalid configuration:\n  WEBHOOK_ALLOW_PRIVATE_TARGETS: may not be true in production (SSRF protection)',
    );
  }
  return {
    ...parsed,
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
