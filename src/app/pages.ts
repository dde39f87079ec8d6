// Pages for people: each feature's pages (the account pages, unsubscribe, forms, …), the console
// under /app (src/app/console.ts; `/` leads a signed-in person there), the favicon, and the API
// reference rendered from /api/openapi by a locally installed
// Swagger UI (no CDN). The forms carry a double-submit CSRF token and also refuse cross-site posts.
import { createRequire } from 'node:module';
import express, { type Express, type Request, type Response } from 'express';
import type { AppContext } from '../core/context.ts';
import { FAVICON_LINK, FAVICON_SVG } from '../http/html.ts';
import { installConsole } from './console.ts';
import { foundationsFirst } from './features.ts';
import { WHOLE_FEATURES } from './wholeFeatures.ts';

/** `/`: the console for a signed-in person, the sign-in page for anyone else. */
function homePage(req: Request, res: Response) {
  res.redirect(303, req.session?.userId ? '/app' : '/auth/signin');
}

function swaggerUiDirectory(): string {
  const require = createRequire(import.meta.url);
  return require('swagger-ui-dist').getAbsoluteFSPath();
}

const DOCS_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Switchboard API</title>
${FAVICON_LINK}<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`;

export function installPages(app: Express, context: AppContext) {
  app.get('/', homePage);
  installConsole(app, context);
  app.get('/favicon.ico', (_req, res) => {
    res.type('image/svg+xml').setHeader('Cache-Control', 'public, max-age=86400');
    res.send(FAVICON_SVG);
  });
  for (const feature of foundationsFirst(WHOLE_FEATURES)) feature.pages?.(app, context);
  app.get('/docs', (_req, res) => res.type('html').send(DOCS_HTML));
  app.get('/docs/init.js', (_req, res) =>
    res
      .type('js')
      .send("window.ui = SwaggerUIBundle({ url: '/api/openapi', dom_id: '#ui', deepLinking: true });"),
  );
  app.use('/docs/assets', express.static(swaggerUiDirectory(), { index: false, maxAge: '1d' }));
}
