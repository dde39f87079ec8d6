// Errors of console pages as pages, never problem+json: a service's NotFound is the 404 page (an
// id of another workspace looks exactly like an unknown one), Forbidden the 403 page; a
// validation or conflict error of a form POST goes back to the form's page as an error flash.
//
//   router.use(consoleErrors(log))   // last, after the routes (the composition does it)
import type { NextFunction, Request, Response } from 'express';
import { AppError, ValidationError } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import { redirectWithFlash } from './flash.ts';
import { sendErrorPage } from './shell.ts';

const CONSOLE_PATH = /^\/app\/(?![/\\])/;

/**
 * Where a refused POST goes back to: the form's `_back` field, else the page it was posted from
 * (the Referer, same site only), else the POST's own path.
 */
function formPage(req: Request): string {
  if (typeof req.body?._back === 'string' && CONSOLE_PATH.test(req.body._back)) return req.body._back;
  const referer = req.get('referer');
  if (referer) {
    const from = URL.parse(referer);
    if (from && from.host === req.get('host') && CONSOLE_PATH.test(from.pathname))
      return from.pathname + from.search;
  }
  return req.originalUrl;
}

function messageOf(error: AppError): string {
  if (error instanceof ValidationError)
    return error.errors.map((e) => `${e.path.replace(/^body\./, '')}: ${e.message}`).join(' · ');
  return error.message;
}

export function consoleErrors(log: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (error instanceof AppError && error.status === 404)
      return sendErrorPage(res, 404, 'Not found', 'There is nothing here, or it is not yours to see.');
    if (error instanceof AppError && error.status === 403)
      return sendErrorPage(res, 403, 'Not allowed', error.message);
    if (error instanceof AppError && req.method === 'POST' && error.status < 500) {
      redirectWithFlash(req, res, formPage(req), messageOf(error), 'error').catch((saveError: unknown) => {
        log.error({ err: saveError, reqId: req.id }, 'console: the session could not be saved');
        sendErrorPage(res, 500, 'Something went wrong', 'Try again in a moment.');
      });
      return;
    }
    if (error instanceof AppError && error.status < 500) {
      res.status(error.status);
      return sendErrorPage(res, error.status, 'Cannot show this page', messageOf(error));
    }
    // body-parser's refusals (too large, malformed) carry their 4xx status.
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return sendErrorPage(res, status, 'Cannot accept this form', 'The form was too large or malformed.');
    log.error({ err: error, reqId: req.id }, 'console page failed');
    sendErrorPage(res, 500, 'Something went wrong', 'The page could not be shown. Try again in a moment.');
  };
}
