// The public unsubscribe surface, /u/{token}: no session, no cookies, no authentication: the
// signed token is the only credential, checked before any database access (a forged one is 404).
//   GET  shows a page that changes nothing (mail scanners prefetch links) with the choice "this
//        channel" or "everything"; pressing a button POSTs the form.
//   POST unsubscribes: RFC 8058 one-click (`List-Unsubscribe=One-Click`, urlencoded or multipart,
//        sent by the mailbox provider) or the page's form. Always 200, never a redirect (RFC 8058
//        §3.2: redirected POSTs are unreliable), and idempotent.
// Both are limited per client address (UNSUBSCRIBE_MAX_REQUESTS_PER_IP per UNSUBSCRIBE_WINDOW_SECONDS,
// counted in each web process): 429 with Retry-After, a page for GET, plain text for POST.
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { runAsWorkspace } from '../db/workspaceShare.ts';
import type { AppContext } from '../http/context.ts';
import { layout } from '../http/html.ts';
import { findMessageById } from './queries.ts';
import { verifyUnsubscribeToken } from './tokens.ts';
import { unsubscribeContact } from './unsubscribe.ts';

const FORM_LIMIT = '16kb';

function notFound(res: Response) {
  res.status(404).type('html').send(layout('Link not found', '<h1>This link is not valid</h1>'));
}

function choicePage(channel: string) {
  return layout(
    'Unsubscribe',
    `<h1>Unsubscribe</h1>
<form method="post">
<p>Stop receiving messages:</p>
<p><button type="submit" name="scope" value="channel">Unsubscribe from ${channel}</button></p>
<p><button type="submit" name="scope" value="all">Unsubscribe from everything</button></p>
</form>`,
  );
}

async function showChoice(app: AppContext, req: Request, res: Response) {
  const messageId = verifyUnsubscribeToken(app.config, String(req.params.token));
  if (!messageId) return notFound(res);
  const message = await findMessageById(app.db, messageId);
  if (!message) return notFound(res);
  res.setHeader('Cache-Control', 'no-store');
  res.type('html').send(choicePage(message.channel));
}

/** A multipart or unparsed body is RFC 8058 one-click: it always means "this channel". */
function choiceOf(req: Request): { all: boolean; oneClick: boolean } {
  const body = (req.body ?? {}) as Record<string, unknown>;
  return { all: body.scope === 'all', oneClick: body.scope === undefined };
}

async function unsubscribe(app: AppContext, req: Request, res: Response) {
  const messageId = verifyUnsubscribeToken(app.config, String(req.params.token));
  if (!messageId) return notFound(res);
  const message = await findMessageById(app.db, messageId);
  if (!message) return notFound(res);
  const { all, oneClick } = choiceOf(req);
  await runAsWorkspace(message.workspace_id, () =>
    app.db.transaction((tx) =>
      unsubscribeContact(
        tx,
        message.workspace_id,
        message.contact_id,
        all ? 'all' : message.channel,
        oneClick ? 'one_click' : 'link',
        message.id,
      ),
    ),
  );
  res.setHeader('Cache-Control', 'no-store');
  const what = all ? 'any messages' : `${message.channel} messages`;
  res
    .status(200)
    .type('html')
    .send(
      layout(
        'Unsubscribed',
        `<h1>You are unsubscribed</h1><p>You will not receive ${what} from us any more.</p>`,
      ),
    );
}

function tooManyRequests(req: Request, res: Response) {
  res.status(429).setHeader('Cache-Control', 'no-store');
  const wait = 'Too many requests from your address: try again in a minute.';
  if (req.method === 'GET')
    res.type('html').send(layout('Try again later', `<h1>Try again later</h1><p>${wait}</p>`));
  else res.type('text').send(wait);
}

/** One counter per client address for GET and POST (req.ip: behind a proxy, set TRUST_PROXY). */
function perAddressLimit(context: AppContext): RequestHandler {
  return rateLimit({
    windowMs: context.config.UNSUBSCRIBE_WINDOW_SECONDS * 1000,
    limit: context.config.UNSUBSCRIBE_MAX_REQUESTS_PER_IP,
    standardHeaders: 'draft-7', // RateLimit headers, and Retry-After once limited
    legacyHeaders: false,
    // TRUST_PROXY decides whether X-Forwarded-For is believed; the library need not warn about it.
    validate: { xForwardedForHeader: false },
    handler: tooManyRequests,
  });
}

export function installUnsubscribePages(app: Express, context: AppContext) {
  const limit = perAddressLimit(context);
  app.get('/u/:token', limit, (req, res) => showChoice(context, req, res));
  app.post('/u/:token', limit, express.urlencoded({ extended: false, limit: FORM_LIMIT }), (req, res) =>
    unsubscribe(context, req, res),
  );
}
