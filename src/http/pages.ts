// Pages for people: the sign-in form, a home page that shows who is signed in, and the API
// reference rendered from /api/openapi by a locally installed Swagger UI (no CDN).
// The forms carry a double-submit CSRF token and also refuse cross-site posts.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import express, { type Express, type Request, type Response } from 'express';
import { findUserById } from '../accounts/queries.ts';
import { authenticateUser } from '../accounts/service.ts';
import { listWorkspacesOfUser } from '../workspaces/queries.ts';
import type { AppContext } from './context.ts';
import { AppError } from './errors.ts';
import { signInSession, signOutSession } from './session.ts';

const CSRF_COOKIE = 'sb.csrf';

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Switchboard</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; background: #f5f6f8; color: #1d2433; margin: 0; }
  main { max-width: 26rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 8px;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1.4rem; margin-top: 0; } label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
  input { width: 100%; box-sizing: border-box; padding: .55rem; border: 1px solid #b8bfcc; border-radius: 4px; font: inherit; }
  button { margin-top: 1.25rem; width: 100%; padding: .6rem; border: 0; border-radius: 4px; background: #2f5bea;
           color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
  .error { background: #fdecec; color: #a11; padding: .6rem .8rem; border-radius: 4px; }
  ul { padding-left: 1.2rem; } code { background: #eef0f4; padding: 0 .25rem; border-radius: 3px; }
</style></head><body><main>${body}</main></body></html>`;
}

function csrfToken(req: Request, res: Response): string {
  const existing = req.get('cookie')?.match(/(?:^|;\s*)sb\.csrf=([A-Za-z0-9_-]{20,})/)?.[1];
  const token = existing ?? randomBytes(24).toString('base64url');
  if (!existing) {
    res.cookie(CSRF_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: req.secure,
      path: '/',
    });
  }
  return token;
}

function validCsrf(req: Request): boolean {
  const cookie = req.get('cookie')?.match(/(?:^|;\s*)sb\.csrf=([A-Za-z0-9_-]{20,})/)?.[1];
  const field = typeof req.body?._csrf === 'string' ? req.body._csrf : '';
  if (!cookie || cookie.length !== field.length) return false;
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(field));
}

function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : '/';
}

function signinPage(token: string, next: string, error?: string, email = ''): string {
  return layout(
    'Sign in',
    `<h1>Sign in to Switchboard</h1>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/auth/signin">
  <input type="hidden" name="_csrf" value="${token}">
  <input type="hidden" name="next" value="${escapeHtml(next)}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>`,
  );
}

async function homePage(app: AppContext, req: Request, res: Response) {
  const user = req.session?.userId ? await findUserById(app.db, req.session.userId) : null;
  if (!user) return res.redirect(303, '/auth/signin');
  const workspaces = await listWorkspacesOfUser(app.db, user.id);
  const items = workspaces
    .map((w) => `<li>${escapeHtml(w.name)} — <code>${w.id}</code> (${w.role})</li>`)
    .join('');
  res.type('html').send(
    layout(
      'Home',
      `<h1>Signed in as ${escapeHtml(user.name)}</h1>
<p>${escapeHtml(user.email)}</p>
<h2>Workspaces</h2>${items ? `<ul>${items}</ul>` : '<p>No workspaces yet: create one with <code>POST /api/workspaces</code>.</p>'}
<p><a href="/docs">API reference</a></p>
<form method="post" action="/auth/signout"><input type="hidden" name="_csrf" value="${csrfToken(req, res)}">
<button type="submit">Sign out</button></form>`,
    ),
  );
}

async function handleSignin(app: AppContext, req: Request, res: Response) {
  const token = csrfToken(req, res);
  const next = safeNext(req.body?.next);
  // A NUL character cannot match any stored email (and PostgreSQL refuses it): treat it as unknown.
  const typed = typeof req.body?.email === 'string' ? req.body.email : '';
  const email = typed.includes('\u0000') ? '' : typed;
  const password = typeof req.body?.password === 'string' ? req.body.password : '';
  if (!validCsrf(req)) {
    return res
      .status(403)
      .type('html')
      .send(signinPage(token, next, 'Your form expired. Please try again.', email));
  }
  try {
    const user = await authenticateUser(app.db, app.config, { email, password, ip: req.ip ?? 'unknown' });
    await signInSession(req, user.id);
    res.redirect(303, next);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    const message =
      error.status === 429 ? 'Too many failed attempts. Try again later.' : 'Incorrect email or password.';
    res
      .status(error.status)
      .type('html')
      .send(signinPage(token, next, message, email));
  }
}

function swaggerUiDirectory(): string {
  const require = createRequire(import.meta.url);
  return require('swagger-ui-dist').getAbsoluteFSPath();
}

const DOCS_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Switchboard API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`;

export function installPages(app: Express, context: AppContext) {
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  app.get('/', (req, res) => homePage(context, req, res));
  app.get('/auth/signin', (req, res) => {
    res.type('html').send(signinPage(csrfToken(req, res), safeNext(req.query.next)));
  });
  app.post('/auth/signin', form, (req, res) => handleSignin(context, req, res));
  app.post('/auth/signout', form, async (req, res) => {
    if (!validCsrf(req))
      return res.status(403).type('html').send(layout('Sign out', '<p>Your form expired.</p>'));
    await signOutSession(req);
    res.redirect(303, '/auth/signin');
  });
  app.get('/docs', (_req, res) => res.type('html').send(DOCS_HTML));
  app.get('/docs/init.js', (_req, res) =>
    res
      .type('js')
      .send("window.ui = SwaggerUIBundle({ url: '/api/openapi', dom_id: '#ui', deepLinking: true });"),
  );
  app.use('/docs/assets', express.static(swaggerUiDirectory(), { index: false, maxAge: '1d' }));
}
