// The example of each documented error response: built by the error class that answers with that
// status, so /docs shows the status, type and title a client will actually receive.
import { STATUS_CODES } from 'node:http';
import {
  AppError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../core/errors.ts';
import { problemBody } from './problem.ts';

const EXAMPLE_REQUEST_ID = '5b0e2c1a-8f3d-4e6b-9a27-1c4d8e0f6a3b';

/** `when` is the route's description of the status; `field` a field the route reads. */
const BY_STATUS: Record<number, (when: string, field: string) => AppError> = {
  400: (_, field) => new ValidationError([{ path: field, message: 'is required' }]),
  401: () => new UnauthorizedError(),
  403: (when) => new ForbiddenError(when),
  404: (when) => new NotFoundError('', when),
  409: (when) => new ConflictError(when),
  413: () => new PayloadTooLargeError('1 MB'),
  415: () => new UnsupportedMediaTypeError(),
  429: (when) => new RateLimitedError(1, when),
  503: (when) => new ServiceUnavailableError(when, 1),
};

export function problemExample(status: number, when: string, field: string): Record<string, unknown> {
  const title = STATUS_CODES[status] ?? 'Error';
  const make = BY_STATUS[status] ?? (() => new AppError(status, 'error', title, when));
  return problemBody(make(when, field), EXAMPLE_REQUEST_ID);
}
