// The public tracking routes: no session, no authentication; the signed token is the only
// credential, checked before any database access.
//   GET /t/o/{token}  the open pixel: always a valid 1×1 GIF with no-store, even for a bad token
//                     (a broken image helps nobody); a genuine one stores the hit.
//   GET /t/c/{token}  a click: stores the hit and redirects 302 to the URL signed into the token,
//                     exactly as written. A tampered, unsigned or non-web token is a 400 page and
//                     never a redirect (no open redirect). The honeypot's token answers an empty page.
// Express answers HEAD with these handlers: the hit is stored with the method, and classify.ts
// counts it as a machine's. Every hit is stored, human or not, up to its token's bound
// (MAX_HITS_PER_TOKEN an hour); beyond it the image and the redirect are answered the same, and
// the hit is not stored. A 429 would break the link for a person. The worker does the rest.
import type { Express, Request, Response } from 'express';
import type { AppContext } from '../core/context.ts';
import { layout } from '../http/html.ts';
import { verifyClickToken, verifyMessageToken } from '../messages/index.ts';
import { type HitKind, requestReasons } from './classify.ts';
import { createHitWriter, type HitWriter } from './hitWriter.ts';

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const MAX_USER_AGENT = 512;

function noStore(res: Response) {
  res.setHeader('Cache-Control', 'no-store, max-age=0');
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
}

async function record(
  app: AppContext,
  write: HitWriter,
  req: Request,
  hit: { messageId: string; kind: HitKind; url: string | null },
) {
  const userAgent = req.get('user-agent');
  const purpose = ['sec-purpose', 'purpose', 'x-purpose', 'x-moz']
    .map((name) => req.get(name) ?? '')
    .join(' ');
  const reasons = requestReasons(hit.kind, { method: req.method, userAgent, purpose });
  try {
    await write({
      ...hit,
      method: req.method,
      userAgent: userAgent?.slice(0, MAX_USER_AGENT) ?? null,
      reasons,
      occurredAt: new Date().toISOString(),
    });
  } catch (error) {
    // The person still gets their image or page; the failure is logged, not shown.
    app.log.error({ err: error, messageId: hit.messageId }, 'tracking hit not stored');
  }
}

async function open(app: AppContext, write: HitWriter, req: Request, res: Response) {
  const messageId = verifyMessageToken(app.config, 'open', String(req.params.token));
  if (messageId) await record(app, write, req, { messageId, kind: 'open', url: null });
  noStore(res);
  res.status(200).type('image/gif').send(PIXEL);
}

function invalidLink(res: Response) {
  res.status(400).type('html').send(layout('Invalid link', '<h1>This link is not valid</h1>'));
}

async function click(app: AppContext, write: HitWriter, req: Request, res: Response) {
  const token = String(req.params.token);
  noStore(res);
  const target = verifyClickToken(app.config, token);
  if (target) {
    await record(app, write, req, { messageId: target.messageId, kind: 'click', url: target.url });
    // The token stays ours: the site the person lands on is not told where they came from.
    res.setHeader('Referrer-Policy', 'no-referrer');
    return res.redirect(302, target.url);
  }
  const honeypot = verifyMessageToken(app.config, 'honeypot', token);
  if (!honeypot) return invalidLink(res);
  await record(app, write, req, { messageId: honeypot, kind: 'honeypot', url: null });
  res.status(200).type('html').send(layout('Nothing here', ''));
}

export function installTrackingPages(app: Express, context: AppContext) {
  const write = createHitWriter(context);
  app.get('/t/o/:token', (req, res) => open(context, write, req, res));
  app.get('/t/c/:token', (req, res) => click(context, write, req, res));
}
