// GET /sdk/push.js and /sdk/sw.js: our own small scripts (no third-party code), read once at start.
// sw.js is revalidated on every fetch (no-cache + ETag): browsers check a service worker's
// imported scripts for updates, and a stale copy would keep old behaviour for a day. push.js may be
// cached for an hour. Both may be loaded from any site (Cross-Origin-Resource-Policy).
// Service-Worker-Allowed lets a site served by Switchboard itself register /sdk/sw.js at its root.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Express, Request, Response } from 'express';

function script(name: string) {
  const source = readFileSync(new URL(`./sdk/${name}`, import.meta.url), 'utf8');
  return { source, etag: `"${createHash('sha256').update(source).digest('base64url').slice(0, 27)}"` };
}

function serve(
  file: { source: string; etag: string },
  cacheControl: string,
  extra: Record<string, string> = {},
) {
  return (req: Request, res: Response) => {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('ETag', file.etag);
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
    if (req.get('if-none-match') === file.etag) return res.status(304).end();
    res.send(file.source);
  };
}

export function installPushSdk(app: Express) {
  app.get('/sdk/push.js', serve(script('push.js'), 'public, max-age=3600'));
  app.get('/sdk/sw.js', serve(script('sw.js'), 'no-cache', { 'Service-Worker-Allowed': '/' }));
}
