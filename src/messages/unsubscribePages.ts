// The public unsubscribe surface, /u/{token}: no session, no cookies, no authentication: the
// signed token is the only credential, checked before any database access (a forged one is 404).
// The token's secrecy is also why the forms carry no CSRF token: there is no session to ride.
//   GET  shows a page that changes nothing (mail scanners prefetch links), naming the sender and
//        the (masked) address, for where the contact stands: subscribed, the choice "this channel"
//        or "everything"; unsubscribed, "you are unsubscribed" and the way back (re-subscribe).
//   POST unsubscribes: RFC 8058 one-click (`List-Unsubscribe=One-Click`, urlencoded or multipart,
//        sent by the mailbox provider) or the page's form; `scope=resubscribe` (the page's button,
//        never sent by a provider) re-subscribes. Always 200, never a redirect (RFC 8058 §3.2:
//        redirected POSTs are unreliable), and idempotent.
// Every page is sent with a CSP that allows nothing but its own inline style and posting to itself.
// Both are limited per client address (UNSUBSCRIBE_MAX_REQUESTS_PER_IP per UNSUBSCRIBE_WINDOW_MS,
// counted in each web process): 429 with Retry-After, a page for GET, plain text for POST.
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { AppContext } from '../core/context.ts';
import { runAsWorkspace } from '../db/workspaceShare.ts';
import { layout } from '../http/html.ts';
import { findMessageById } from './queries.ts';
import type { MessageRow } from './rows.ts';
import { verifyUnsubscribeToken } from './tokens.ts';
import { resubscribeContact, unsubscribeContact } from './unsubscribe.ts';
import { loadUnsubscribeView, unsubscribePage } from './unsubscribeView.ts';

const FORM_LIMIT = '16kb';

function notFound(res: Response) {
  res.status(404).type('html').send(layout('Link not found', '<h1>This link is not valid</h1>'));
}

const PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'";

async function sendPage(app: AppContext, res: Response, message: MessageRow, resubscribed = false) {
  const view = await loadUnsubscribeView(app.db, message);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', PAGE_POLICY);
  res.status(200).type('html').send(unsubscribePage(view, resubscribed));
}

async function tokenMessage(app: AppContext, req: Request): Promise<MessageRow | null> {
  const messageId = verifyUnsubscribeToken(app.config, String(req.params.token));
  return messageId ? findMessageById(app.db, messageId) : null;
}

async function showChoice(app: AppContext, req: Request, res: Response) {
  const message = await tokenMessage(app, req);
  if (!message) return notFound(res);
  await runAsWorkspace(message.workspace_id, () => sendPage(app, res, message));
}

type Choice = 'channel' | 'all' | 'resubscribe';

/** A multipart or unparsed body is RFC 8058 one-click: it always means "this channel". */
function choiceOf(req: Request): { choice: Choice; oneClick: boolean } {
  const scope = ((req.body ?? {}) as Record<string, unknown>).scope;
  const choice = scope === 'all' || scope === 'resubscribe' ? scope : 'channel';
  return { choice, oneClick: scope === undefined };
}

async function unsubscribe(app: AppContext, req: Request, res: Response) {
  const message = await tokenMessage(app, req);
  if (!message) return notFound(res);
  const { choice, oneClick } = choiceOf(req);
  const { workspace_id: workspaceId, contact_id: contactId } = message;
  await runAsWorkspace(workspaceId, async () => {
    await app.db.transaction((tx) =>
      choice === 'resubscribe'
        ? resubscribeContact(tx, workspaceId, contactId, message.channel)
        : unsubscribeContact(
            tx,
            workspaceId,
            contactId,
            choice === 'all' ? 'all' : message.channel,
            oneClick ? 'one_click' : 'link',
            message.id,
          ),
    );
    await sendPage(app, res, message, choice === 'resubscribe');
  });
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
    windowMs: context.config.UNSUBSCRIBE_WINDOW_MS,
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
