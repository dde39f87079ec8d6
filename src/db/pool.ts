// The slonik pool every query goes through. Two things make it ours:
// - type parsers: timestamptz leaves as an ISO 8601 UTC string with milliseconds (what the API
//   returns), int8 as a number (refusing values past Number.MAX_SAFE_INTEGER), numeric as a number;
// - an interceptor that validates every row against the zod schema of `sql.type(schema)`, so a
//   query whose columns drift from its type fails loudly instead of leaking a wrong shape.
import { createHash } from 'node:crypto';
import {
  type ArraySqlToken,
  createPool,
  createSqlTag,
  type DatabasePool,
  type DatabaseTransactionConnection,
  type FragmentSqlToken,
  type Interceptor,
  type QueryResultRow,
  SchemaValidationError,
} from 'slonik';
import { z } from 'zod';
import { boundConnectionWait } from './acquireTimeout.ts';
import { runCallbacksAfterCommit } from './afterCommit.ts';
import { boundedQueryDriver } from './queryTimeout.ts';

// Hot statements of fixed text (ingest's, the API-key lookup) go through `sql.prepared(name, …)`:
// each connection parses them once and PostgreSQL settles on a cached plan, where an unnamed
// statement was parsed and planned again on every call (most of a single ingest's database CPU).
// Only fixed text may be named: a name is kept per connection for the connection's life.

/** The row of a statement that returns none, for `sql.prepared` (typeAlias('void') elsewhere). */
export const VoidRow = z.object({}).strict();

export const sql = createSqlTag({
  typeAliases: {
    void: VoidRow,
    id: z.object({ id: z.string() }),
  },
});

/** Most distinct texts `preparedByText` names per process; later ones go unnamed. */
const MAX_NAMED_TEXTS = 200;
const namedTexts = new Set<string>();

/**
 * A statement whose text is built at run time but repeats (ingest's segment diff is the same text
 * for the same segments), named after a hash of its text so each connection parses and plans it
 * once. Names live as long as a connection, so only the first MAX_NAMED_TEXTS texts are named:
 * a workspace-per-text explosion falls back to unnamed statements instead of growing backends.
 */
export function preparedByText<T extends z.ZodType<QueryResultRow>>(
  prefix: string,
  parser: T,
  fragment: FragmentSqlToken,
) {
  const hash = createHash('sha256').update(fragment.sql).digest('hex').slice(0, 32);
  if (!namedTexts.has(hash) && namedTexts.size < MAX_NAMED_TEXTS) namedTexts.add(hash);
  if (!namedTexts.has(hash)) return sql.type(parser)`${fragment}`;
  return sql.prepared(`${prefix}.${hash}`, parser)`${fragment}`;
}

/**
 * A jsonb parameter for the row sets ingest sends (events, outgoing events, score changes,
 * enrollments) and the webhook dispatcher's batches, serialised by JSON.stringify. sql.jsonb also
 * walks every string of the value to refuse what jsonb cannot hold (NUL, lone surrogates); the
 * request validation has refused those already (http/validation.ts), webhook bodies are built from
 * jsonb and receivers' answers have NUL replaced (webhooks/sender.ts), and the walk was a tenth of
 * a batch's time in Node.
 */
export function jsonbRows(rows: unknown): FragmentSqlToken {
  return sql.fragment`${JSON.stringify(rows)}::jsonb`;
}

/**
 * The rows' ids as a text[] parameter. Beside a jsonb_to_recordset join, `id = any(ids)` lets the
 * planner look each row up by its index: it takes a row set of unknown ids for 100 rows and would
 * hash-join it against a scan of the whole table.
 */
export function idArray(rows: readonly { id: string }[]): ArraySqlToken {
  return sql.array(
    rows.map((row) => row.id),
    'text',
  );
}

export type Db = DatabasePool | DatabaseTransactionConnection;
export type Tx = DatabaseTransactionConnection;

function isoTimestamp(value: string | null): string | null {
  if (value === null) return null;
  if (value === 'infinity' || value === '-infinity') throw new Error(`unsupported timestamp ${value}`);
  return new Date(value).toISOString();
}

function safeInteger(value: string | null): number | null {
  if (value === null) return null;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`integer ${value} exceeds the safe range`);
  return parsed;
}

const typeParsers = [
  { name: 'timestamptz', parse: isoTimestamp },
  { name: 'timestamp', parse: (value: string | null) => (value === null ? null : isoTimestamp(`${value}Z`)) },
  { name: 'int8', parse: safeInteger },
  { name: 'numeric', parse: (value: string | null) => (value === null ? null : Number(value)) },
];

const rowValidation: Interceptor = {
  name: 'switchboard.row-validation',
  transformRowAsync: async (context, query, row) => {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = await parser['~standard'].validate(row);
    if (result.issues) throw new SchemaValidationError(query, row, result.issues);
    return result.value as QueryResultRow;
  },
};

export type PoolOptions = {
  maxPoolSize?: number;
  /** Server-side statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs?: number;
  /** Longest wait to open a connection (DATABASE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** Longest wait for a free pooled connection (DATABASE_ACQUIRE_TIMEOUT_MS). */
  acquireTimeoutMs?: number;
  /**
   * Client-side bound on each query (DATABASE_QUERY_TIMEOUT_MS, queryTimeout.ts), for a server
   * that stopped answering. Only for pools whose statements all run under `statementTimeoutMs`
   * (web and worker): unset, a query may take as long as it needs (the CLI's imports lift the
   * statement timeout for their merge; migrations and bench seeding run long by design).
   */
  queryTimeoutMs?: number;
};

export async function createDatabasePool(connectionUri: string, options: PoolOptions = {}) {
  const maxPoolSize = options.maxPoolSize ?? 10;
  const pool = await createPool(connectionUri, {
    interceptors: [rowValidation],
    typeParsers,
    maxPoolSize,
    statementTimeout: options.statementTimeoutMs ?? 60_000,
    // A transaction left open by a stalled client must not hold its row locks for long either.
    idleInTransactionSessionTimeout: options.statementTimeoutMs ?? 60_000,
    idleTimeout: 30_000,
    connectionTimeout: options.connectTimeoutMs ?? 10_000,
    captureStackTrace: false,
    ...(options.queryTimeoutMs === undefined
      ? {}
      : { driverFactory: boundedQueryDriver(options.queryTimeoutMs) }),
    // slonik's default sends DISCARD ALL on every release: one more round-trip per query and per
    // transaction, and it would drop the prepared statements below while pg still believes them
    // parsed. Nothing else here leaves session state behind (no SET, LISTEN or temp tables go
    // through this pool; timeouts are connection parameters), so there is nothing to reset.
    resetConnection: async () => {},
  });
  return runCallbacksAfterCommit(boundConnectionWait(pool, maxPoolSize, options.acquireTimeoutMs ?? 10_000));
}
