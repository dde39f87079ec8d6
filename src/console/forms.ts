// Every change in the console is a form POST: parsed (urlencoded), CSRF-checked, then answered by a
// 303 redirect with a flash message kept in the session, so it works with JavaScript off and a
// reload never posts twice.
//
//   router.post('/contacts/:contactId', consoleForm(), async (req, res) => {
//     const name = formText(req, 'firstName');
//     …
//     await redirectWithFlash(req, res, `${workspacePath(res)}/contacts/${id}`, 'Contact saved.');
//   });
//
// A POST without the form's CSRF token (or sent cross-site) gets the 403 page and changes nothing.
// End it with redirectWithFlash (flash.ts). Service errors thrown by a handler reach consoleErrors
// (errors.ts), which renders them as pages or, for a refused form, an error flash.
import express, { type Request, type RequestHandler } from 'express';
import type { z } from 'zod';
import { ValidationError } from '../core/errors.ts';
import { validCsrf } from '../http/html.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import { sendErrorPage } from './shell.ts';

const urlencoded = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 500 });

/**
 * The middleware of every console POST: the body parsed, then the CSRF token checked. A form with
 * many fields or long texts (a campaign's steps) gives its own `limit` and `parameterLimit`.
 */
export function consoleForm(options: { limit?: string; parameterLimit?: number } = {}): RequestHandler {
  const parse =
    options.limit || options.parameterLimit
      ? express.urlencoded({
          extended: false,
          limit: options.limit ?? '64kb',
          parameterLimit: options.parameterLimit ?? 500,
        })
      : urlencoded;
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (validCsrf(req)) return next();
      sendErrorPage(
        res,
        403,
        'Form expired',
        'This form could not be checked (it expired, or was sent from another site). Go back, reload the page and try again.',
      );
    });
}

/** A text field of the form: '' when absent or not text; NUL removed (PostgreSQL refuses it). */
export function formText(req: Request, name: string): string {
  const value = req.body?.[name];
  return typeof value === 'string' ? value.replaceAll('\u0000', '') : '';
}

/** Every value of a repeated field (checkboxes), as text. */
export function formList(req: Request, name: string): string[] {
  const value = req.body?.[name];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.filter((v): v is string => typeof v === 'string').map((v) => v.replaceAll('\u0000', ''));
}

/**
 * A form's fields through the API's own schema, so a page accepts exactly what the API does: what
 * it refuses is a 400 naming each field, which consoleErrors turns into an error flash.
 */
export function parseForm<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ValidationError(zodIssuesToFieldErrors(parsed.error.issues, 'body'));
  return parsed.data;
}
