// The only reader of process.env. Every variable is parsed once, with zod, by the table in
// src/config/variables.ts; a bad value stops start-up with a message that names the variable.
// .env.example and docs/operate/configuration.md are generated from that table (npm run config:docs).
import { z } from 'zod';
import { OWASP_MEMORY_KIB, UNIT_MS, VARIABLES, type Variable } from './config/variables.ts';

export { OWASP_MEMORY_KIB };

type Schemas = { [Name in keyof typeof VARIABLES]: (typeof VARIABLES)[Name]['schema'] };
const environmentSchema = z.object(
  Object.fromEntries(Object.entries(VARIABLES).map(([name, entry]) => [name, entry.schema])) as Schemas,
);

export type Config = Omit<
  z.infer<typeof environmentSchema>,
  'DATABASE_QUERY_TIMEOUT_MS' | 'LOG_FORMAT' | 'TRUST_PROXY' | 'WEBHOOK_ALLOW_HTTP'
> & {
  /** Client-side bound on a query of the web and worker pools (db/queryTimeout.ts). */
  DATABASE_QUERY_TIMEOUT_MS: number;
  /** How the log is written: readable lines for a person at a terminal, JSON for machines. */
  LOG_FORMAT: 'json' | 'pretty';
  trustProxy: boolean;
  webhookAllowHttp: boolean;
};

export class ConfigError extends Error {}

type Environment = Record<string, string | undefined>;

/**
 * Reads the earlier names of renamed variables: a value under an old name is converted to the new
 * name's unit and stands for it (unless the new name is set too: then the new one wins). Returns the
 * environment under current names, which old name each value came from, and one warning a use.
 */
function readFormerNames(present: Environment) {
  const environment: Environment = { ...present };
  const origin = new Map<string, string>();
  const warnings: string[] = [];
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(VARIABLES) as [string, Variable][]) {
    const former = entry.formerly;
    if (!former) continue;
    const old = present[former.name];
    delete environment[former.name];
    if (old === undefined) continue;
    if (present[name] !== undefined) {
      warnings.push(`${former.name} and ${name} are both set: ${name} wins; remove ${former.name}`);
      continue;
    }
    const converted = former.unit ? convert(old, UNIT_MS[former.unit]) : old;
    if (converted === undefined) {
      problems.push(
        `  ${former.name}: must be a number of ${former.unit} (it is now ${name}, in milliseconds)`,
      );
      continue;
    }
    environment[name] = converted;
    origin.set(name, former.name);
    const value = former.unit ? ` (${old} ${former.unit} is ${name}=${converted})` : '';
    warnings.push(`${former.name} is deprecated: use ${name}${value}`);
  }
  return { environment, origin, warnings, problems };
}

/** A number of an old unit in milliseconds, undefined when it is not a plain number. */
function convert(value: string, factor: number): string | undefined {
  const trimmed = value.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  return String(Math.round(Number(trimmed) * factor));
}

// Empty strings count as unset, as they do in most .env tooling.
function present(environment: Environment): Environment {
  return Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== '' && value !== undefined),
  );
}

/** What the start-up logs about the environment: each deprecated name in use, and conflicts. */
export function configWarnings(environment: Environment): string[] {
  return readFormerNames(present(environment)).warnings;
}

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

/** Settings production refuses: each a message, naming the variable as it was set. */
function productionProblems(parsed: z.infer<typeof environmentSchema>, named: (name: string) => string) {
  const problems: string[] = [];
  if (!parsed.SESSION_SECRET)
    problems.push('SESSION_SECRET: required in production (at least 32 characters)');
  if (!parsed.ENCRYPTION_KEY) {
    problems.push('ENCRYPTION_KEY: required in production (32 bytes as 64 hex digits or base64)');
  }
  if (parsed.ALLOW_PRIVATE_TARGETS) {
    problems.push(`${named('ALLOW_PRIVATE_TARGETS')}: may not be true in production (SSRF protection)`);
  }
  if (parsed.PASSWORD_HASH_MEMORY_KIB < OWASP_MEMORY_KIB) {
    problems.push(
      `PASSWORD_HASH_MEMORY_KIB: may not be below ${OWASP_MEMORY_KIB} in production (OWASP's argon2id minimum)`,
    );
  }
  if (parsed.SYSTEM_SMTP_URL && !parsed.PUBLIC_URL) {
    problems.push('SYSTEM_SMTP_URL: needs PUBLIC_URL in production (the links in its mails start with it)');
  }
  if (parsed.PUSH_ALLOW_ANY_ENDPOINT) {
    problems.push('PUSH_ALLOW_ANY_ENDPOINT: may not be true in production (SSRF protection)');
  }
  return problems;
}

export function parseConfig(environment: Environment): Config {
  const { environment: current, origin, problems } = readFormerNames(present(environment));
  // A value given under an old name is reported under that name, with the new one beside it.
  const named = (name: string) => (origin.has(name) ? `${origin.get(name)} (now ${name})` : name);
  const result = environmentSchema.safeParse(current);
  const issues = result.success ? [] : result.error.issues;
  const lines = [...problems, ...issues.map((issue) => `  ${named(issue.path.join('.'))}: ${issue.message}`)];
  if (lines.length > 0 || !result.success)
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  const parsed = result.data;
  const production = parsed.NODE_ENV === 'production';
  const refused = production ? productionProblems(parsed, named) : [];
  if (refused.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${refused.map((line) => `  ${line}`).join('\n')}`);
  }
  const { TRUST_PROXY, WEBHOOK_ALLOW_HTTP, ...settings } = parsed;
  return {
    ...settings,
    DATABASE_QUERY_TIMEOUT_MS: queryTimeout(parsed),
    LOG_FORMAT: parsed.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    trustProxy: TRUST_PROXY ?? production,
    webhookAllowHttp: WEBHOOK_ALLOW_HTTP ?? !production,
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
