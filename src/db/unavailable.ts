// Errors that say the database is unreachable, restarting, stalled or out of connections rather than
// that the request was wrong: the problem middleware answers them 503 with Retry-After (the client
// retries; the pools reconnect by themselves) instead of a 500.
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  IdleTransactionTimeoutError,
  StatementTimeoutError,
} from 'slonik';

/**
 * Thrown when a request waited DATABASE_ACQUIRE_TIMEOUT_MS for a pooled connection (db/pool.ts) or
 * DATABASE_STATEMENT_TIMEOUT_MS for a statement the server never answered.
 */
export class DatabaseTimeoutError extends Error {}

const UNAVAILABLE_CLASSES = [
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  IdleTransactionTimeoutError,
  StatementTimeoutError,
  DatabaseTimeoutError,
];

/**
 * SQLSTATEs of an unavailable server: connection exceptions (08), too many connections (53300),
 * statement timeout (57014), administrator or crash shutdown and "starting up" (57P01-57P03).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|53300|57014|57P0[1-3])$/;

/** Socket errors and node-postgres's own messages for a connection it lost or could not make. */
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

function unavailableHere(error: Error): boolean {
  if (UNAVAILABLE_CLASSES.some((kind) => error instanceof kind)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE_CODES.has(code))) {
    return true;
  }
  return UNAVAILABLE_MESSAGE.test(error.message);
}

/** Whether the error (or any error it wraps) means the database could not serve the request. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (unavailableHere(current)) return true;
    if (current instanceof AggregateError && current.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}
