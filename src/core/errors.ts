// One error family for the whole service: web, worker and CLI. Each error carries its HTTP status,
// a stable code and a public message; the problem middleware renders it as RFC 9457 problem+json.

export type FieldError = { path: string; message: string };

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(
    status: number,
    code: string,
    title: string,
    detail: string,
    options: { headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(detail);
    this.status = status;
    this.code = code;
    this.title = title;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }
}

export class ValidationError extends AppError {
  readonly errors: FieldError[];
  constructor(errors: FieldError[], detail = 'The request is invalid: see errors for each field to fix.') {
    super(400, 'validation-error', 'Invalid request', detail, { extra: { errors } });
    this.errors = errors;
  }
}

export class BadRequestError extends AppError {
  constructor(detail: string, code = 'bad-request') {
    super(400, code, 'Bad request', detail);
  }
}

export class UnauthorizedError extends AppError {
  constructor(detail = 'Sign in, or send an API key as `Authorization: Bearer <key>`.') {
    super(401, 'unauthorized', 'Unauthorized', detail);
  }
}

export class ForbiddenError extends AppError {
  constructor(detail: string, code = 'forbidden') {
    super(403, code, 'Forbidden', detail);
  }
}

export class NotFoundError extends AppError {
  constructor(what: string, detail?: string) {
    super(404, 'not-found', 'Not found', detail ?? `${what} was not found.`);
  }
}

export class ConflictError extends AppError {
  constructor(detail: string, code = 'conflict') {
    super(409, code, 'Conflict', detail);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limit: string) {
    super(413, 'payload-too-large', 'Payload too large', `The request body is larger than ${limit}.`);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor() {
    super(
      415,
      'unsupported-media-type',
      'Unsupported media type',
      'Send the request body as JSON with `Content-Type: application/json`.',
    );
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, detail: string) {
    super(429, 'rate-limited', 'Too many requests', detail, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: string, retryAfterSeconds?: number) {
    super(503, 'unavailable', 'Service unavailable', detail, {
      headers: retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, allowed: string[]) {
    super(
      405,
      'method-not-allowed',
      'Method not allowed',
      `${method} is not allowed here; use ${allowed.join(', ')}.`,
      {
        headers: { Allow: allowed.join(', ') },
      },
    );
  }
}
