// Pages for people: the account pages (src/accounts/pages.ts), a home page that shows who is signed
// in, the favicon, and the API reference rendered from /api/openapi by a locally installed
// Swagger UI (no CDN). The forms carry a double-submit CSRF token and also refuse cross-site posts.
import { createRequire } from 'node:module';
import express, { type Express, type Request, type Response } from 'express';
import { findUserById } from '../accounts/index.ts';
import type { AppContext } from '../core/context.ts';
import { csrfToken, escapeHtml, FAVICON_LINK, FAVICON_SVG, layout, signoutForm } from '../http/html.ts';
import { accounts, forms, messages, push, tracking, workspaces } from './features.ts';

async function homePage(app: AppContext, req: Request, res: Response) {
  const user = req.session?.userId ? await findUserById(app.db, req.session.userId) : null;
  if (!user) return res.redirect(303, '/auth/signin');
  const memberOf = await workspaces.listWorkspacesOfUser(app.db, user.id);
  const items = memberOf
    .map((w) => `<li>${escapeHtml(w.name)} — <code>${w.id}</code> (${w.role})</li>`)
    .join('');
  res.type('html').send(
    layout(
      'Home',
      `<h1>Signed in as ${escapeHtml(user.name)}</h1>
<p>${escapeHtml(user.email)}</p>
<h2>Workspaces</h2>${items ? `<ul>${items}</ul>` : '<p>No workspaces yet: create one with <code>POST /api/workspaces</code>.</p>'}
<p><a href="/docs">API reference</a></p>
${signoutForm(csrfToken(req, res))}`,
    ),
  );
}

function swaggerUiDirectory(): string {
  const require = createRequire(import.meta.url);
  return require('swagger-ui-dist').getAbsoluteFSPath();
}

const DOCS_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Switchboard API</title>
${FAVICON_LINK}<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`;

export function installPages(app: Express, context: AppContext) {
  app.get('/', (req, res) => homePage(context, req, res));
  app.get('/favicon.ico', (_req, res) => {
    res.type('image/svg+xml').setHeader('Cache-Control', 'public, max-age=86400');
    res.send(FAVICON_SVG);
  });
  accounts.pages(app, context);
  messages.pages(app, context);
  push.pages(app);
  forms.pages(app, context);
  tracking.pages(app, context);
  app.get('/docs', (_req, res) => res.type('html').send(DOCS_HTML));
  app.get('/docs/init.js', (_req, res) =>
    res
      .type('js')
      .send("window.ui = SwaggerUIBundle({ url: '/api/openapi', dom_id: '#ui', deepLinking: true });"),
  );
  app.use('/docs/assets', express.static(swaggerUiDirectory(), { index: false, maxAge: '1d' }));
}
