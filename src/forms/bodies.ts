// A hosted form's POST body, in whichever of the three shapes it comes: urlencoded (a plain HTML
// form), multipart (a form with enctype="multipart/form-data", or fetch with FormData) or JSON.
// Multipart is parsed by the Fetch API's own parser (undici, in Node): no dependency for it.
import express, { type Request } from 'express';
import { AppError, BadRequestError, ValidationError } from '../core/errors.ts';
import { findUnstorableText } from '../http/validation.ts';

export const FORM_BODY_LIMIT = '64kb';

/** Reads the raw body (any content type) up to the limit; 413 beyond it. */
export const readRawBody = express.raw({ type: () => true, limit: FORM_BODY_LIMIT });

/**
 * Whether the caller wants JSON back: it sent JSON, or asked for it (fetch with FormData and
 * `Accept: application/json`). A browser's form post gets HTML.
 */
export function wantsJson(req: Request): boolean {
  return (
    req.is('application/json') === 'application/json' ||
    /application\/(problem\+)?json/.test(req.get('accept') ?? '')
  );
}

async function fromMultipart(req: Request, raw: Buffer): Promise<Record<string, unknown>> {
  let data: FormData;
  try {
    data = await new Response(new Uint8Array(raw), {
      headers: { 'content-type': req.get('content-type') ?? '' },
    }).formData();
  } catch {
    throw new BadRequestError('The multipart body could not be read.', 'malformed-body');
  }
  const body: Record<string, unknown> = {};
  for (const [key, value] of data) {
    if (typeof value !== 'string')
      throw new ValidationError([{ path: `body.${key}`, message: 'must be text, not a file' }]);
    body[key] = value;
  }
  return body;
}

function fromJson(raw: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new BadRequestError('The body is not valid JSON.', 'malformed-json');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationError([{ path: 'body', message: 'must be a JSON object of field values' }]);
  }
  return parsed as Record<string, unknown>;
}

function unsupported(): AppError {
  return new AppError(
    415,
    'unsupported-media-type',
    'Unsupported media type',
    'Send the form as application/x-www-form-urlencoded, multipart/form-data or application/json.',
  );
}

function parse(req: Request, raw: Buffer): Promise<Record<string, unknown>> | Record<string, unknown> {
  if (req.is('application/json')) return fromJson(raw);
  if (req.is('multipart/form-data')) return fromMultipart(req, raw);
  if (req.is('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  throw unsupported();
}

/** The submitted fields as one object (the last value wins where a key repeats). */
export async function parseFormBody(req: Request): Promise<Record<string, unknown>> {
  const body = await parse(req, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
  // Text PostgreSQL cannot store (NUL, lone surrogates) is a 400 naming the field, never a 500.
  const unstorable = findUnstorableText(body, 'body');
  if (unstorable) throw new ValidationError([unstorable]);
  return body;
}
