// Renders every error as RFC 9457 problem+json. Known errors keep their status and message;
// body-parser failures become 400/413/415; anything else is logged with its cause and answered
// with a bare 500 that carries no stack trace or SQL.
import { STATUS_CODES } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { SchemaValidationError, UniqueIntegrityConstraintViolationError } from 'slonik';
import {
  AppError,
  BadRequestError,
  ConflictError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../core/errors.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import type { Logger } from '../log.ts';

export const PROBLEM_TYPE_PREFIX = 'urn:switchboard:problem:';

type BodyParserError = Error & { type?: string; status?: number };

/** Whether a body the strict parser refused is JSON all the same (`null`, `"text"`, `42`). */
function parsesAsJson(error: BodyParserError & { body?: unknown }): boolean {
  if (typeof error.body !== 'string') return false;
  try {
    JSON.parse(error.body);
    return true;
  } catch {
    return false;
  }
}

function fromBodyParser(error: BodyParserError): AppError | null {
  switch (error.type) {
    case 'entity.parse.failed':
      return parsesAsJson(error)
        ? new BadRequestError('The request body must be a JSON object or array.', 'malformed-json')
        : new BadRequestError('The request body is not valid JSON.', 'malformed-json');
    case 'entity.too.large':
      return new PayloadTooLargeError('1 MB');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError();
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new BadRequestError('The request body could not be read.');
    default:
      return null;
  }
}

/** Express's own client errors (http-errors style `status` 4xx), e.g. an undecodable path parameter. */
function fromExpress(error: Error & { status?: unknown; expose?: unknown }): AppError | null {
  if (error instanceof URIError && error.status === 400) {
    return new BadRequestError('The URL is not validly percent-encoded.', 'malformed-url');
  }
  const status = error.status;
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  return new AppError(
    status,
    'client-error',
    STATUS_CODES[status] ?? 'Client error',
    error.expose === true ? error.message : 'The request could not be processed.',
  );
}

/** Seconds a client is asked to wait when the database is restarting, stalled or full. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

function databaseUnavailable(): AppError {
  return new ServiceUnavailableError(
    'The database did not answer in time (it may be restarting or overloaded). Retry after the ' +
      'seconds in Retry-After (with the same Idempotency-Key, where the operation takes one).',
    DATABASE_RETRY_AFTER_SECONDS,
  );
}

export function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof UniqueIntegrityConstraintViolationError) {
    // Services map the constraints they expect; one that slips through is still a conflict, not a 500.
    return new ConflictError('A resource with these unique values already exists.');
  }
  if (!(error instanceof Error)) return null;
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  return ('type' in error ? fromBodyParser(error as BodyParserError) : null) ?? fromExpress(error);
}

/** The problem+json body of an error (the OpenAPI examples are built with it too). */
export function problemBody(error: AppError, requestId?: string): Record<string, unknown> {
  return {
    type: PROBLEM_TYPE_PREFIX + error.code,
    title: error.title,
    status: error.status,
    detail: error.message,
    ...(requestId ? { requestId } : {}),
    ...error.extra,
  };
}

export function sendProblem(res: Response, error: AppError, requestId?: string): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res
    .status(error.status)
    .type('application/problem+json')
    .send(JSON.stringify(problemBody(error, requestId)));
}

export function problemMiddleware(log: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const known = toAppError(error);
    if (known) return sendProblem(res, known, req.id);
    const detail = error instanceof SchemaValidationError ? { issues: error.issues, sql: error.sql } : {};
    log.error({ err: error, ...detail, reqId: req.id, method: req.method }, 'unhandled error');
    res
      .status(500)
      .type('application/problem+json')
      .send(
        JSON.stringify({
          type: `${PROBLEM_TYPE_PREFIX}internal`,
          title: 'Internal server error',
          status: 500,
          detail:
            'Something went wrong on our side. It has been logged; quote the requestId when you report it.',
          requestId: req.id,
        }),
      );
  };
}
