// Every environment variable of the service, once: its zod type and default, what it is for, its
// group and who should set it. src/config.ts parses the environment with this table; .env.example
// and docs/operate/configuration.md are generated from it (npm run config:docs) and a unit test
// fails when they drift. A new variable is one entry here, then the script.
import { createRequire } from 'node:module';
import { z } from 'zod';

const require = createRequire(import.meta.url);

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

const milliseconds = (min: number, max?: number) => wholeNumber(min, max, ' of milliseconds');

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
    // Required here, when a cron variable is set, not when the configuration table is imported.
    const { CronExpressionParser } = require('cron-parser') as typeof import('cron-parser');
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

/**
 * The service's own mail server (password resets, invitations) as one URL:
 * smtp[s]://user:password@host[:port]?from=address. The sender is `from`, else the user when it is
 * an address. smtps is TLS from the start (port 465 by default); smtp upgrades with STARTTLS when
 * the server offers it (port 587 by default). User and password are percent-decoded.
 */
const systemSmtpUrl = z
  .url({
    protocol: /^smtps?$/,
    error:
      'must be an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com?from=noreply@example.com',
  })
  .transform((value, context) => {
    const url = new URL(value);
    const secure = url.protocol === 'smtps:';
    const user = decodeURIComponent(url.username);
    const from = url.searchParams.get('from') ?? (user.includes('@') ? user : '');
    if (!/^[^\s<>@]+@[^\s<>@]+$|<[^\s<>@]+@[^\s<>@]+>$/.test(from.trim())) {
      context.addIssue({
        code: 'custom',
        message: 'needs a sender: add ?from=noreply@example.com (or "?from=Name <address>", URL-encoded)',
      });
      return z.NEVER;
    }
    return {
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port ? Number(url.port) : secure ? 465 : 587,
      secure,
      user: user || undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      from: from.trim(),
    };
  });

/** OWASP's argon2id memory for passwords, in KiB: the default, and the least production accepts. */
export const OWASP_MEMORY_KIB = 19_456;

export const GROUPS = [
  'Database',
  'Web',
  'Security',
  'Email',
  'Push',
  'Telegram',
  'Messages',
  'Webhooks',
  'Campaigns',
  'Segments',
  'Events',
  'Import',
  'Tracking',
  'Forms',
  'Retention',
  'Logging',
  'Development and tests',
] as const;
export type Group = (typeof GROUPS)[number];

/** Who should set it, most pressing first (the order of .env.example within a group). */
export const AUDIENCES = ['required in production', 'common', 'tuning', 'development and tests'] as const;
export type Audience = (typeof AUDIENCES)[number];

/** How many milliseconds one of an old name's unit is (the convention: durations in milliseconds). */
export const UNIT_MS = {
  milliseconds: 1,
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
};
export type Unit = keyof typeof UNIT_MS;

/** An earlier name still read: its value (in `unit`, when it was a duration) is converted. */
export type FormerName = { name: string; unit?: Unit };

type About = {
  group: Group;
  audience: Audience;
  /** One line: what it does (Markdown; the .env.example copy drops the backticks). */
  description: string;
  /** What an unset variable means, when that is not a fixed value. */
  unset?: string;
  /** A value shown in .env.example for a variable without a default. */
  example?: string;
  formerly?: FormerName;
};

export type Variable<S extends z.ZodType = z.ZodType> = About & {
  schema: S;
  /** The default as it would be written in the environment; parsed by the same schema. */
  default?: string;
};

function variable<S extends z.ZodType<unknown, string>>(
  schema: S,
  about: About & { default: string },
): Variable<z.ZodPrefault<S>>;
function variable<S extends z.ZodType<unknown, string>>(schema: S, about: About): Variable<z.ZodOptional<S>>;
function variable(schema: z.ZodType<unknown, string>, about: About & { default?: string }): Variable {
  return {
    ...about,
    schema: about.default === undefined ? schema.optional() : schema.prefault(about.default),
  };
}

const url = (protocols: RegExp, error: string) => z.url({ protocol: protocols, error });
const httpUrl = (example: string) => url(/^https?$/, `must be an http:// or https:// URL, e.g. ${example}`);
const DAY = 86_400_000;

export const VARIABLES = {
  // --- Database
  DATABASE_URL: variable(url(/^postgres(ql)?$/, 'must be a postgres:// or postgresql:// URL'), {
    group: 'Database',
    audience: 'required in production',
    description: 'PostgreSQL 15 or newer, e.g. the URL Heroku Postgres sets',
    unset: 'an embedded PostgreSQL is started with its data under `DATA_DIR` (development only)',
    example: 'postgres://user:password@host:5432/switchboard',
  }),
  DATABASE_POOL_SIZE: variable(wholeNumber(1, 200), {
    default: '10',
    group: 'Database',
    audience: 'common',
    description: 'Query connections per process (the session store takes half as many more)',
  }),
  DATABASE_CONNECT_TIMEOUT_MS: variable(milliseconds(1), {
    default: '5000',
    group: 'Database',
    audience: 'tuning',
    description: 'Longest wait to open a database connection before a 503 with `Retry-After`',
  }),
  DATABASE_ACQUIRE_TIMEOUT_MS: variable(milliseconds(1), {
    default: '5000',
    group: 'Database',
    audience: 'tuning',
    description: 'Longest wait for a free pooled connection before a 503 (the request never ran)',
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: variable(milliseconds(1), {
    default: '15000',
    group: 'Database',
    audience: 'tuning',
    description:
      "PostgreSQL's `statement_timeout` of every query (also the longest a transaction may sit idle); past it a 503",
  }),
  DATABASE_QUERY_TIMEOUT_MS: variable(milliseconds(1), {
    group: 'Database',
    audience: 'tuning',
    description:
      'Client-side bound on one query of the web and worker processes, for a server that stopped answering: a 503 and the connection dropped. Must exceed `DATABASE_STATEMENT_TIMEOUT_MS`; CLI commands have none',
    unset: '`DATABASE_STATEMENT_TIMEOUT_MS` + 2000',
  }),
  WORKSPACE_POOL_SHARE: variable(wholeNumber(1, 200), {
    default: '5',
    group: 'Database',
    audience: 'tuning',
    description:
      "Query connections of a process one workspace's requests and jobs may use at once, so its heavy work cannot starve the others",
  }),
  WORKSPACE_POOL_WAIT_MS: variable(milliseconds(0, 60_000), {
    default: '2000',
    group: 'Database',
    audience: 'tuning',
    description:
      "How long a request waits for its workspace's share before a 503 with `Retry-After` (jobs wait their turn)",
  }),
  // --- Web
  PORT: variable(wholeNumber(0, 65535), {
    default: '3000',
    group: 'Web',
    audience: 'common',
    description: 'HTTP port of the web process (Heroku sets it)',
  }),
  PUBLIC_URL: variable(httpUrl('https://switchboard.example.com'), {
    group: 'Web',
    audience: 'common',
    description:
      'The public origin: the OpenAPI server URL, the own origin of the cross-site (Origin) check, and the base of the Telegram webhook',
    example: 'https://switchboard.example.com',
  }),
  TRUST_PROXY: variable(booleanFlag, {
    group: 'Web',
    audience: 'common',
    description:
      'Trust one proxy hop (`X-Forwarded-For`, `X-Forwarded-Proto`) for the client address and https',
    unset: "`true` in production (Heroku's router), else `false`",
  }),
  SHUTDOWN_TIMEOUT_MS: variable(milliseconds(1), {
    default: '30000',
    group: 'Web',
    audience: 'tuning',
    description: 'How long SIGTERM may take: in-flight requests and jobs finish, then the pools close',
  }),
  INGEST_MAX_WAIT_MS: variable(milliseconds(100, 600_000), {
    default: '15000',
    group: 'Web',
    audience: 'tuning',
    description:
      'How long a single event may wait for its group transaction to start before a 503 with `Retry-After` (nothing stored)',
  }),
  // Past a few thousand levels, recursive code (and PostgreSQL's jsonb parser) runs out of stack.
  JSON_MAX_DEPTH: variable(wholeNumber(2, 1000), {
    default: '32',
    group: 'Web',
    audience: 'tuning',
    description: 'Deepest nesting of arrays and objects in a JSON request body (2–1000); deeper is a 400',
  }),
  JSON_MAX_ARRAY_ITEMS: variable(wholeNumber(1000, undefined, ' (a batch holds up to 1000 events)'), {
    default: '10000',
    group: 'Web',
    audience: 'tuning',
    description:
      "Most items in one JSON array of a request body (at least 1000, a batch's size); more is a 400",
  }),
  JSON_MAX_OBJECT_KEYS: variable(wholeNumber(1), {
    default: '1000',
    group: 'Web',
    audience: 'tuning',
    description: 'Most keys in one JSON object of a request body; more is a 400',
  }),
  PUBLIC_RATE_WINDOW_MS: variable(milliseconds(1_000, 3_600_000), {
    default: '60000',
    group: 'Web',
    audience: 'tuning',
    description: "The window of the public endpoints' request limits (publishable keys, hosted forms)",
    formerly: { name: 'PUBLIC_RATE_WINDOW_SECONDS', unit: 'seconds' },
  }),
  PUBLIC_RATE_LIMIT_PER_KEY: variable(wholeNumber(1), {
    default: '600',
    group: 'Web',
    audience: 'tuning',
    description: 'Requests per window one publishable key may make, then 429 with `Retry-After`',
  }),
  PUBLIC_RATE_LIMIT_PER_IP: variable(wholeNumber(1), {
    default: '120',
    group: 'Web',
    audience: 'tuning',
    description: 'Requests per window one client address may make to `/api/public/…`',
  }),
  UNSUBSCRIBE_MAX_REQUESTS_PER_IP: variable(wholeNumber(1), {
    default: '300',
    group: 'Web',
    audience: 'tuning',
    description:
      'Requests to the unsubscribe pages `/u/{token}` (GET and POST together) per client address per window, per web process; generous, as mailbox providers post one-click unsubscribes for many people from few addresses',
  }),
  UNSUBSCRIBE_WINDOW_MS: variable(milliseconds(1_000, DAY), {
    default: '60000',
    group: 'Web',
    audience: 'tuning',
    description: 'The window of `UNSUBSCRIBE_MAX_REQUESTS_PER_IP`',
    formerly: { name: 'UNSUBSCRIBE_WINDOW_SECONDS', unit: 'seconds' },
  }),
  // --- Security
  SESSION_SECRET: variable(z.string().min(32, 'must be at least 32 characters'), {
    group: 'Security',
    audience: 'required in production',
    description: 'Signs session cookies: at least 32 characters',
    unset: 'generated and kept in `DATA_DIR` (development only)',
  }),
  ENCRYPTION_KEY: variable(encryptionKeys, {
    group: 'Security',
    audience: 'required in production',
    description:
      'AES-256 key for secrets at rest (webhook signing secrets, channel credentials): 32 bytes as 64 hex digits or base64 (`openssl rand -base64 32`). To rotate: `new,old` (the first encrypts, every one decrypts), run `switchboard secrets rotate-key`, then drop the old',
    unset: 'generated and kept in `DATA_DIR` (development only)',
  }),
  ALLOW_PRIVATE_TARGETS: variable(booleanFlag, {
    default: 'false',
    group: 'Security',
    audience: 'development and tests',
    description:
      'Allow outbound targets (webhook URLs, SMTP hosts) at private, loopback and link-local addresses; refused in production (SSRF)',
    formerly: { name: 'WEBHOOK_ALLOW_PRIVATE_TARGETS' },
  }),
  SESSION_IDLE_TIMEOUT_MS: variable(milliseconds(60_000), {
    default: String(DAY),
    group: 'Security',
    audience: 'common',
    description: 'A session unused this long ends',
    formerly: { name: 'SESSION_IDLE_TIMEOUT_MINUTES', unit: 'minutes' },
  }),
  SESSION_ABSOLUTE_TIMEOUT_MS: variable(milliseconds(60_000), {
    default: String(14 * DAY),
    group: 'Security',
    audience: 'common',
    description: 'A session ends this long after sign-in, however active',
    formerly: { name: 'SESSION_ABSOLUTE_TIMEOUT_HOURS', unit: 'hours' },
  }),
  SIGNIN_MAX_FAILURES_PER_EMAIL: variable(wholeNumber(1), {
    default: '10',
    group: 'Security',
    audience: 'tuning',
    description:
      'Failed sign-ins per email from one client address within the window, then 429 with `Retry-After`',
  }),
  SIGNIN_MAX_FAILURES_PER_IP: variable(wholeNumber(1), {
    default: '50',
    group: 'Security',
    audience: 'tuning',
    description: 'Failed sign-ins per client address within the window, then 429',
  }),
  SIGNIN_MAX_FAILURES_PER_EMAIL_ALL_IPS: variable(wholeNumber(1), {
    default: '100',
    group: 'Security',
    audience: 'tuning',
    description: 'Failed sign-ins per email from every address together within the window, then 429',
  }),
  SIGNIN_WINDOW_MS: variable(milliseconds(60_000), {
    default: '900000',
    group: 'Security',
    audience: 'tuning',
    description: 'The sliding window of the sign-in limits (whole minutes count)',
    formerly: { name: 'SIGNIN_WINDOW_MINUTES', unit: 'minutes' },
  }),
  REGISTRATION_MAX_PER_IP: variable(wholeNumber(1), {
    default: '20',
    group: 'Security',
    audience: 'tuning',
    description: 'Registrations (API and page) per client address within their window, then 429',
  }),
  REGISTRATION_WINDOW_MS: variable(milliseconds(60_000), {
    default: '3600000',
    group: 'Security',
    audience: 'tuning',
    description: 'The sliding window of the registration limit (whole minutes count)',
    formerly: { name: 'REGISTRATION_WINDOW_MINUTES', unit: 'minutes' },
  }),
  PASSWORD_HASH_CONCURRENCY: variable(wholeNumber(1, 64), {
    default: '2',
    group: 'Security',
    audience: 'tuning',
    description: 'argon2 derivations running at once per process (1–64)',
  }),
  PASSWORD_HASH_QUEUE: variable(wholeNumber(0, 100_000), {
    default: '64',
    group: 'Security',
    audience: 'tuning',
    description:
      'Password checks, and separately new hashes, that may wait for a derivation (checks go first); past that, 503 with `Retry-After`',
  }),
  // argon2id's memory per new hash; lower only to make test runs fast (refused in production).
  PASSWORD_HASH_MEMORY_KIB: variable(wholeNumber(8, 1_048_576, ' of KiB'), {
    default: String(OWASP_MEMORY_KIB),
    group: 'Security',
    audience: 'development and tests',
    description:
      "argon2id memory of each new password hash in KiB (OWASP's 19456; production refuses less, tests use 64). A hash keeps the parameters it was made with",
  }),
  PASSWORD_RESET_EXPIRY_MS: variable(milliseconds(300_000, DAY), {
    default: '3600000',
    group: 'Security',
    audience: 'tuning',
    description: 'How long a password reset link works (5 minutes to a day); it works once',
  }),
  INVITATION_EXPIRY_MS: variable(milliseconds(60_000, 365 * DAY), {
    default: String(14 * DAY),
    group: 'Security',
    audience: 'common',
    description: 'How long an invitation to a workspace stays open (at most 365 days)',
    formerly: { name: 'INVITATION_EXPIRY_DAYS', unit: 'days' },
  }),
  TRACKING_SECRET: variable(secretList, {
    group: 'Security',
    audience: 'common',
    description:
      'Signs open and click tracking links: secrets of at least 32 characters, comma-separated to rotate (the first signs, every one verifies)',
    unset: 'derived from `SESSION_SECRET`',
  }),
  // --- Email
  SMTP_ALLOWED_HOSTS: variable(hostList, {
    default: '',
    group: 'Email',
    audience: 'common',
    description:
      'SMTP hosts (names or addresses, comma-separated) a workspace may use although they are private, e.g. your relay',
  }),
  SYSTEM_SMTP_URL: variable(systemSmtpUrl, {
    group: 'Email',
    audience: 'common',
    description:
      "The service's own mail (password reset links, invitations), not a workspace's: `smtps://user:password@host:port?from=address` (smtp:// upgrades with STARTTLS when offered). Links in it start with `PUBLIC_URL`",
    unset:
      'no mail is sent: `switchboard admin reset-link` prints a reset link, and an invitation answers with the link to share',
    example: 'smtps://apikey:secret@smtp.example.com:465?from=Switchboard%20%3Cnoreply%40example.com%3E',
  }),
  SMTP_TIMEOUT_MS: variable(milliseconds(1), {
    default: '15000',
    group: 'Email',
    audience: 'tuning',
    description: 'SMTP connect and greeting timeout (a socket idle four times this long is closed)',
  }),
  SNS_CERT_HOST_PATTERN: variable(wholeMatch, {
    default: '^sns\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?$',
    group: 'Email',
    audience: 'development and tests',
    description:
      'Hosts (`host[:port]`, matched whole, case-insensitive) SNS signing certificates and subscription URLs may be fetched from, over https only',
  }),
  SNS_FETCH_TIMEOUT_MS: variable(milliseconds(1), {
    default: '10000',
    group: 'Email',
    audience: 'tuning',
    description: 'Timeout of fetching an SNS certificate or visiting a SubscribeURL',
  }),
  FEEDBACK_SOFT_BOUNCE_LIMIT: variable(wholeNumber(1, 100), {
    default: '3',
    group: 'Email',
    audience: 'tuning',
    description:
      'Soft bounces of different messages in a row (no delivery between) that suppress an address (1–100)',
  }),
  // --- Push
  PUSH_ALLOW_ANY_ENDPOINT: variable(booleanFlag, {
    default: 'false',
    group: 'Push',
    audience: 'development and tests',
    description:
      'Accept and send to any `https:` push endpoint, not only the known push services (a local push service); refused in production (SSRF)',
  }),
  PUSH_CA_FILE: variable(z.string().min(1), {
    group: 'Push',
    audience: 'development and tests',
    description: 'PEM file of extra certificate authorities trusted for push services (a local push service)',
    example: '/path/to/ca.pem',
  }),
  PUSH_TTL_MS: variable(milliseconds(0, 28 * DAY), {
    default: String(DAY),
    group: 'Push',
    audience: 'tuning',
    description:
      'How long a push service keeps a notification for an offline browser when the step sets no `ttlSeconds` (at most 28 days; sent in whole seconds)',
    formerly: { name: 'PUSH_TTL_SECONDS', unit: 'seconds' },
  }),
  PUSH_TIMEOUT_MS: variable(milliseconds(1), {
    default: '15000',
    group: 'Push',
    audience: 'tuning',
    description: 'Timeout of one request to a push service',
  }),
  // --- Telegram
  TELEGRAM_API_ROOT: variable(
    httpUrl('https://api.telegram.org').transform((value) => value.replace(/\/+$/, '')),
    {
      default: 'https://api.telegram.org',
      group: 'Telegram',
      audience: 'development and tests',
      description: "The Bot API server: Telegram's, or a local Bot API server (and the tests' fake)",
    },
  ),
  TELEGRAM_TIMEOUT_MS: variable(milliseconds(1), {
    default: '15000',
    group: 'Telegram',
    audience: 'tuning',
    description: 'Timeout of one Bot API call (rounded up to whole seconds)',
  }),
  TELEGRAM_LINK_TTL_MS: variable(milliseconds(60_000, 30 * DAY), {
    default: String(DAY),
    group: 'Telegram',
    audience: 'common',
    description: "How long a contact's `https://t.me/<bot>?start=<token>` link can be used (at most 30 days)",
    formerly: { name: 'TELEGRAM_LINK_TTL_MINUTES', unit: 'minutes' },
  }),
  // --- Messages
  MESSAGE_RETRY_SCHEDULE: variable(secondsList, {
    default: '300,1800,7200,21600',
    group: 'Messages',
    audience: 'tuning',
    description:
      'Seconds before each retry of a send the provider deferred (4xx, network error), comma-separated; after the last the message fails',
  }),
  MESSAGE_SEND_LEASE_MS: variable(milliseconds(5_000, DAY), {
    default: '900000',
    group: 'Messages',
    audience: 'tuning',
    description:
      'How long a claimed send may take; a send with no outcome after that (a killed worker) is marked failed, error `interrupted`, never resent',
    formerly: { name: 'MESSAGE_SEND_LEASE_SECONDS', unit: 'seconds' },
  }),
  MESSAGE_SEND_JOB_EXPIRE_MS: variable(milliseconds(30_000, DAY), {
    default: '300000',
    group: 'Messages',
    audience: 'tuning',
    description:
      'A send job a killed worker had taken is retried after this (safe: the claim decides what is sent); whole seconds count',
    formerly: { name: 'MESSAGE_SEND_JOB_EXPIRE_SECONDS', unit: 'seconds' },
  }),
  // A message is rendered when one of these is free, so a broadcast keeps the pooled connections
  // busy without holding hundreds rendered.
  MESSAGE_SENDS_IN_FLIGHT: variable(wholeNumber(1, 1_000), {
    default: '20',
    group: 'Messages',
    audience: 'tuning',
    description:
      'Sends in flight per workspace and channel per worker (a message is rendered when one is free)',
  }),
  // --- Webhooks
  WEBHOOK_TIMEOUT_MS: variable(milliseconds(1), {
    default: '15000',
    group: 'Webhooks',
    audience: 'tuning',
    description: 'Timeout of one outbound delivery attempt',
  }),
  WEBHOOK_RETRY_SCHEDULE: variable(secondsList, {
    default: '0,5,300,1800,7200,18000,36000,36000',
    group: 'Webhooks',
    audience: 'tuning',
    description:
      'Seconds before each attempt, comma-separated: the first is the initial delay, then the retries',
  }),
  WEBHOOK_ALLOW_HTTP: variable(booleanFlag, {
    group: 'Webhooks',
    audience: 'development and tests',
    description: 'Allow `http://` endpoint URLs',
    unset: '`false` in production, else `true`',
  }),
  WEBHOOK_DISABLE_AFTER_MS: variable(milliseconds(1), {
    default: String(5 * DAY),
    group: 'Webhooks',
    audience: 'common',
    description: 'An endpoint failing for this long is disabled',
    formerly: { name: 'WEBHOOK_DISABLE_AFTER_DAYS', unit: 'days' },
  }),
  WEBHOOK_CONCURRENCY: variable(wholeNumber(1, 1000), {
    default: '64',
    group: 'Webhooks',
    audience: 'tuning',
    description: 'Deliveries in flight per worker process',
  }),
  WEBHOOK_ENDPOINT_CONCURRENCY: variable(wholeNumber(1, 1000), {
    group: 'Webhooks',
    audience: 'tuning',
    description:
      'Deliveries in flight to one endpoint per worker process: a slow or hanging receiver holds only these',
    unset: 'half of `WEBHOOK_CONCURRENCY`',
  }),
  WEBHOOK_LEASE_MS: variable(milliseconds(500), {
    group: 'Webhooks',
    audience: 'tuning',
    description: "How long a crashed worker's attempt waits before another worker takes it over",
    unset: '2 × `WEBHOOK_TIMEOUT_MS` + 30000',
  }),
  WEBHOOK_INBOUND_REPLAY_WINDOW_MS: variable(milliseconds(0, 90 * DAY), {
    default: String(DAY),
    group: 'Webhooks',
    audience: 'tuning',
    description:
      'An inbound body accepted on its hex `X-Webhook-Signature` and received again within this window is a duplicate and creates no event (0: off)',
    formerly: { name: 'WEBHOOK_INBOUND_REPLAY_WINDOW_SECONDS', unit: 'seconds' },
  }),
  // --- Campaigns
  CAMPAIGN_BROADCAST_PAGE_SIZE: variable(wholeNumber(1, 100_000), {
    default: '1000',
    group: 'Campaigns',
    audience: 'tuning',
    description: 'Segment members a broadcast enrolls per page (one job and transaction each)',
  }),
  CAMPAIGN_AUDIENCE_LIVE_LIMIT: variable(wholeNumber(0, 100_000_000), {
    default: '5000',
    group: 'Campaigns',
    audience: 'tuning',
    description:
      "A broadcast's audience of up to this many members is counted at every request; a larger one is served its last count, with its time, and counted again in the background. Measured on a 2-core database shared with other work (load average 11-16): 0.05-0.19 s for 1,000 members, 0.5 s for 8,460, about 6 s for a million; the default keeps the console's audience page near its 300 ms p95 with four readers. Raise it on a faster database",
  }),
  CAMPAIGN_STEP_EXPIRE_MS: variable(milliseconds(1_000, DAY), {
    default: '60000',
    group: 'Campaigns',
    audience: 'tuning',
    description:
      'How long a campaign step or broadcast page job may run; one a killed worker held is retried after this (whole seconds count)',
    formerly: { name: 'CAMPAIGN_STEP_EXPIRE_SECONDS', unit: 'seconds' },
  }),
  JOB_SUPERVISE_MS: variable(milliseconds(1_000, 3_600_000), {
    default: '60000',
    group: 'Campaigns',
    audience: 'tuning',
    description:
      'How often a worker looks for expired jobs (those a killed worker held) to retry them (whole seconds count)',
    formerly: { name: 'JOB_SUPERVISE_SECONDS', unit: 'seconds' },
  }),
  // --- Segments
  SEGMENT_REFRESH_CRON: variable(cronExpression, {
    default: '* * * * *',
    group: 'Segments',
    audience: 'tuning',
    description: 'When the worker refreshes time-dependent segments (cron, UTC)',
  }),
  SEGMENT_RULE_MAX_DEPTH: variable(wholeNumber(1, 10), {
    default: '5',
    group: 'Segments',
    audience: 'tuning',
    description: 'Nesting of all/any/not in one rule tree (at most 10); checked when a rule is saved',
  }),
  SEGMENT_RULE_MAX_CONDITIONS: variable(wholeNumber(1, 1_000), {
    default: '50',
    group: 'Segments',
    audience: 'tuning',
    description: 'Conditions in one rule tree',
  }),
  SEGMENT_RULE_MAX_EVENT_CONDITIONS: variable(wholeNumber(0, 1_000), {
    default: '10',
    group: 'Segments',
    audience: 'tuning',
    description: "Event conditions in one rule tree (each reads the contact's events)",
  }),
  SEGMENT_RULE_MAX_WHERE: variable(wholeNumber(0, 10_000), {
    default: '20',
    group: 'Segments',
    audience: 'tuning',
    description:
      '`where` clauses over all the event conditions of one rule tree (each runs for every event read)',
  }),
  SEGMENTS_PER_WORKSPACE: variable(wholeNumber(1, 100_000), {
    default: '100',
    group: 'Segments',
    audience: 'common',
    description: 'Segments one workspace may have; one more is a 409',
  }),
  SEGMENT_COMPUTE_PAGE_SIZE: variable(wholeNumber(10, 100_000), {
    default: '1000',
    group: 'Segments',
    audience: 'tuning',
    description: 'Contacts per page when a segment is computed or refreshed',
  }),
  SEGMENT_REFRESH_ROWS_PER_WORKSPACE: variable(wholeNumber(10), {
    default: '5000',
    group: 'Segments',
    audience: 'tuning',
    description:
      'Contacts the scheduled refresh evaluates per workspace per run (a pass cut short resumes next run)',
  }),
  SEGMENT_REFRESH_MS_PER_WORKSPACE: variable(milliseconds(1), {
    default: '10000',
    group: 'Segments',
    audience: 'tuning',
    description: 'Time the scheduled refresh spends per workspace per run',
  }),
  // --- Events
  // Events are partitioned by month (sql/0031): how many months ahead partitions are made.
  EVENT_PARTITIONS_AHEAD_MONTHS: variable(wholeNumber(1, 24, ' of months'), {
    default: '3',
    group: 'Events',
    audience: 'tuning',
    description:
      'Monthly event partitions made ahead of the current month (1–24; a count of partitions, not a duration), by `migrate` and hourly by the worker',
  }),
  // --- Import
  // `switchboard import`: memory PostgreSQL may use for the merge's sorts, hashes and temporary
  // tables (work_mem, maintenance_work_mem and temp_buffers of its transaction).
  IMPORT_WORK_MEM_MB: variable(wholeNumber(4, 65_536, ' of megabytes'), {
    default: '256',
    group: 'Import',
    audience: 'tuning',
    description:
      "Memory (MB, 4–65536) PostgreSQL may use for `switchboard import`'s sorts, hashes and temporary tables (its transaction only)",
  }),
  IMPORT_CHECKERS: variable(wholeNumber(1, 64), {
    group: 'Import',
    audience: 'tuning',
    description:
      "Threads that check an NDJSON file's rows during `switchboard import`, the main one included (1–64; each other one loads the row schemas, ~45 MB)",
    unset: 'one a core, at most 4',
  }),
  IMPORT_UPLOAD_MAX_BYTES: variable(wholeNumber(1_024, 10_737_418_240, ' of bytes'), {
    default: String(100 * 1024 * 1024),
    group: 'Import',
    audience: 'common',
    description:
      'The largest file the console takes for an import (bytes, 1 KiB–10 GiB); larger files go through `switchboard import`',
  }),
  // --- Tracking
  TRACKING_MIN_MS_AFTER_SEND: variable(milliseconds(0, 3_600_000), {
    default: '5000',
    group: 'Tracking',
    audience: 'tuning',
    description:
      "An open or click sooner than this after the send is counted as a machine's (mail gateways and privacy proxies fetch mail on arrival)",
    formerly: { name: 'TRACKING_MIN_SECONDS_AFTER_SEND', unit: 'seconds' },
  }),
  // --- Forms
  FORM_RATE_LIMIT_PER_IP: variable(wholeNumber(1), {
    default: '10',
    group: 'Forms',
    audience: 'tuning',
    description: 'Hosted form submissions per `PUBLIC_RATE_WINDOW_MS` from one client address',
  }),
  FORM_CONFIRMATION_WINDOW_MS: variable(milliseconds(3_600_000, 30 * DAY), {
    default: String(DAY),
    group: 'Forms',
    audience: 'tuning',
    description:
      'Double opt-in: one confirmation email per address and form while pending within this window (1 hour to 30 days)',
    formerly: { name: 'FORM_CONFIRMATION_WINDOW_HOURS', unit: 'hours' },
  }),
  FORM_CONFIRMATIONS_PER_ADDRESS: variable(wholeNumber(1, 100), {
    default: '3',
    group: 'Forms',
    audience: 'tuning',
    description:
      "Double opt-in: confirmation emails one address may get per window across a workspace's forms (1–100)",
  }),
  // --- Retention (src/app/retention.ts lists every rule)
  RETENTION_WEBHOOK_DELIVERIES_MS: variable(milliseconds(DAY, 3_650 * DAY), {
    default: String(30 * DAY),
    group: 'Retention',
    audience: 'common',
    description:
      'How long delivery records, inbound receipts, finished outbound messages, fanned-out outgoing events, provider feedback receipts and processed Telegram updates are kept',
    formerly: { name: 'RETENTION_WEBHOOK_DELIVERIES_DAYS', unit: 'days' },
  }),
  RETENTION_JOBS_MS: variable(milliseconds(DAY, 3_650 * DAY), {
    default: String(7 * DAY),
    group: 'Retention',
    audience: 'tuning',
    description: 'How long pg-boss keeps finished jobs (completed, failed, cancelled)',
    formerly: { name: 'RETENTION_JOBS_DAYS', unit: 'days' },
  }),
  RETENTION_EVENTS_MS: variable(milliseconds(DAY, 36_500 * DAY), {
    group: 'Retention',
    audience: 'common',
    description:
      'How long events are kept (by receipt); whole months are dropped once all of a month is older',
    unset: 'kept for ever',
    formerly: { name: 'RETENTION_EVENTS_DAYS', unit: 'days' },
  }),
  RETENTION_MESSAGES_MS: variable(milliseconds(DAY, 36_500 * DAY), {
    group: 'Retention',
    audience: 'common',
    description: 'How long finished messages (with their history) are kept',
    unset: 'kept for ever',
    formerly: { name: 'RETENTION_MESSAGES_DAYS', unit: 'days' },
  }),
  RETENTION_SCORE_HISTORY_MS: variable(milliseconds(DAY, 36_500 * DAY), {
    group: 'Retention',
    audience: 'common',
    description: 'How long lead score history is kept',
    unset: 'kept for ever',
    formerly: { name: 'RETENTION_SCORE_HISTORY_DAYS', unit: 'days' },
  }),
  RETENTION_TRACKING_HITS_MS: variable(milliseconds(DAY, 36_500 * DAY), {
    group: 'Retention',
    audience: 'common',
    description:
      'How long classified tracking hits (opens, clicks, machine hits) are kept; campaign reports count them',
    unset: 'kept for ever',
    formerly: { name: 'RETENTION_TRACKING_HITS_DAYS', unit: 'days' },
  }),
  RETENTION_AUDIT_LOG_MS: variable(milliseconds(DAY, 36_500 * DAY), {
    default: String(365 * DAY),
    group: 'Retention',
    audience: 'common',
    description:
      "How long the audit log's entries (configuration changes: who, what, when, from where) are kept",
  }),
  RETENTION_IMPORTS_MS: variable(milliseconds(DAY, 3_650 * DAY), {
    default: String(30 * DAY),
    group: 'Retention',
    audience: 'common',
    description:
      "How long the console's finished imports are kept, with their refused rows (an uploaded file itself goes when its import ends, or a day after upload if never started)",
  }),
  RETENTION_CRON: variable(cronExpression, {
    default: '*/15 * * * *',
    group: 'Retention',
    audience: 'tuning',
    description: 'When the worker prunes (cron, UTC); `switchboard prune` prunes now',
  }),
  RETENTION_BATCH_SIZE: variable(wholeNumber(10, 100_000), {
    default: '1000',
    group: 'Retention',
    audience: 'tuning',
    description: 'Rows one pruning statement deletes at most',
  }),
  // --- Logging
  LOG_LEVEL: variable(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), {
    default: 'info',
    group: 'Logging',
    audience: 'common',
    description:
      'pino level (`fatal`, `error`, `warn`, `info`, `debug`, `trace`), or `silent`; logs go to stdout',
  }),
  LOG_FORMAT: variable(oneOf(['json', 'pretty']), {
    group: 'Logging',
    audience: 'common',
    description: '`json`: one object a line, for log collectors; `pretty`: readable lines for a person',
    unset: '`pretty` on a terminal, else `json`',
  }),
  // --- Development and tests
  NODE_ENV: variable(oneOf(['development', 'test', 'production']), {
    default: 'development',
    group: 'Development and tests',
    audience: 'required in production',
    description:
      '`production` requires `SESSION_SECRET` and `ENCRYPTION_KEY`, marks cookies Secure, trusts one proxy hop and refuses the development-only settings',
  }),
  DATA_DIR: variable(z.string().min(1), {
    default: '.data',
    group: 'Development and tests',
    audience: 'development and tests',
    description: 'Where the embedded PostgreSQL and the generated development secrets live',
  }),
  EMBEDDED_PG_PORT: variable(wholeNumber(1, 65535), {
    default: '54329',
    group: 'Development and tests',
    audience: 'development and tests',
    description:
      'Port of the embedded PostgreSQL (only without `DATABASE_URL`); only a server of this `DATA_DIR` is used on it',
  }),
};

export type VariableName = keyof typeof VARIABLES;
