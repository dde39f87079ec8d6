// The one shape of a time in every body, request or response: ISO 8601 UTC with milliseconds.
// In core so that every kit's schemas (HTTP routes, outgoing event payloads) share it.
import { z } from 'zod';
import './zodOpenApi.ts';

export const Timestamp = z.iso
  .datetime({ offset: false, precision: 3 })
  .openapi({ format: 'date-time', example: '2026-11-22T17:28:00.123Z' });
