// The hosted form, /f/{formId}: no session, no cookies. GET shows it; POST takes a submission as
// urlencoded, multipart or JSON. From the hosted page itself (same origin) no key is needed; from
// another origin the request needs a publishable key of the form's workspace whose origins
// include the caller (CORS answered for those alone). Every submission counts against a per-IP
// limit. Browsers get HTML back (the form again with its errors; a thank-you page or the form's
// redirect), JSON callers get JSON (problem+json for errors). Invalid input stores nothing.
import type { Express, Request, Response } from 'express';
import type { AppContext } from '../core/context.ts';
import { AppError, NotFoundError, ValidationError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import { sendProblem, toAppError } from '../http/problem.ts';
import { answerPreflight, authenticatePublicRequest, limitRequests } from '../publicKeys/index.ts';
import { parseFormBody, readRawBody, wantsJson } from './bodies.ts';
import { confirmSubmission, verifyConfirmationToken } from './confirmation.ts';
import { type FormRow, findFormById } from './queries.ts';
import { confirmPage, formPage, formPagePolicy, messagePage, thankYouPage } from './render.ts';
import { acceptSubmission } from './submit.ts';
import { successText } from './successMessage.ts';
import { caughtByHoneypot, checkValues, type Submitted } from './values.ts';

function ownOrigin(app: AppContext, req: Request): string {
  return app.config.PUBLIC_URL
    ? new URL(app.config.PUBLIC_URL).origin
    : `${req.protocol}://${req.get('host')}`;
}

function sendHtml(res: Response, status: number, html: string, form?: FormRow) {
  res.setHeader('Cache-Control', 'no-store');
  if (form) res.setHeader('Content-Security-Policy', formPagePolicy(form));
  res.status(status).type('html').send(html);
}

async function showForm(app: AppContext, req: Request, res: Response) {
  const form = await findFormById(app.db, String(req.params.formId));
  if (!form) return sendHtml(res, 404, messagePage('Form not found', 'There is no form at this address.'));
  sendHtml(res, 200, formPage(form), form);
}

/** Same-origin posts come from the hosted page; any other origin must bring a publishable key. */
async function admit(app: AppContext, req: Request, res: Response, form: FormRow) {
  const origin = req.get('origin');
  if (origin !== undefined && origin !== ownOrigin(app, req)) {
    await authenticatePublicRequest(app, req, res, { workspaceId: form.workspace_id });
  }
  const settings = app.config;
  await limitRequests(
    app.db,
    settings,
    `form-ip:${req.ip}`,
    settings.FORM_RATE_LIMIT_PER_IP,
    'from your address',
  );
}

function succeed(
  req: Request,
  res: Response,
  form: FormRow,
  submission: { id: string; values: Submitted },
  pending: boolean,
) {
  const submissionId = submission.id;
  const message = successText(form, submission.values);
  if (wantsJson(req)) {
    const confirmation = form.double_opt_in ? 'pending' : 'none';
    res.status(201).json({ submissionId, confirmation, message, redirectUrl: form.redirect_url });
    return;
  }
  if (form.redirect_url) return res.redirect(303, form.redirect_url);
  sendHtml(res, 200, thankYouPage(form, message, pending), form);
}

async function submit(app: AppContext, req: Request, res: Response) {
  const form = await findFormById(app.db, String(req.params.formId));
  if (!form) throw new NotFoundError('Form');
  await admit(app, req, res, form);
  const body = await parseFormBody(req);
  // A bot is told it succeeded (so it does not adapt), and nothing is stored.
  const { values, errors } = checkValues(form.fields, body);
  if (caughtByHoneypot(body)) {
    return succeed(req, res, form, { id: newId('formSubmission'), values }, form.double_opt_in);
  }
  if (errors.length > 0) {
    if (wantsJson(req)) throw new ValidationError(errors);
    return sendHtml(res, 400, formPage(form, { values: body, errors }), form);
  }
  const submission = await acceptSubmission(app, form, values);
  succeed(req, res, form, { id: submission.id, values }, form.double_opt_in);
}

function failed(app: AppContext, req: Request, res: Response, error: unknown) {
  const known = toAppError(error);
  if (!known) app.log.error({ err: error, reqId: req.id }, 'form submission failed');
  const problem =
    known ?? new AppError(500, 'internal', 'Internal error', 'Something went wrong; try again.');
  if (wantsJson(req)) return sendProblem(res, problem, req.id);
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  sendHtml(res, problem.status, messagePage(problem.title, problem.message));
}

async function showConfirmation(app: AppContext, req: Request, res: Response) {
  const submissionId = verifyConfirmationToken(app.config, String(req.params.token));
  if (!submissionId) return sendHtml(res, 404, messagePage('Link not found', 'This link is not valid.'));
  sendHtml(res, 200, confirmPage());
}

async function confirm(app: AppContext, req: Request, res: Response) {
  const submissionId = verifyConfirmationToken(app.config, String(req.params.token));
  const done =
    submissionId !== null && (await app.db.transaction((tx) => confirmSubmission(tx, submissionId)));
  if (!done) return sendHtml(res, 404, messagePage('Link not found', 'This link is not valid.'));
  sendHtml(res, 200, messagePage('Subscription confirmed', 'Thank you: your subscription is confirmed.'));
}

export function installFormPages(app: Express, context: AppContext) {
  app.get('/f/:formId', (req, res) => showForm(context, req, res));
  app.options('/f/:formId', (req, res) => answerPreflight(context, req, res, ['POST']));
  app.post('/f/:formId', readRawBody, (req, res) =>
    submit(context, req, res).catch((error) => failed(context, req, res, error)),
  );
  app.get('/f/confirm/:token', (req, res) => showConfirmation(context, req, res));
  app.post('/f/confirm/:token', (req, res) => confirm(context, req, res));
}
