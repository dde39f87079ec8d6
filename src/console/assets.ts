// The console's static files, served by the process itself (no CDN): console.css, console.js and
// htmx (the exact version pinned in package.json, read from node_modules). Each URL carries a hash
// of the file's bytes, so a response may be cached for a year: a changed file gets a new URL.
//
//   assetUrl('console.css')   → /app/assets/console.3f2a9c1e.css   (what the shell links)
//   serveAssets()             → the handler the composition mounts at /app/assets
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Request, Response } from 'express';

export type AssetName = 'console.css' | 'console.js' | 'htmx.js';

type Asset = { body: Buffer; type: string; url: string };

const require = createRequire(import.meta.url);

function load(name: AssetName, file: string, type: string): Asset {
  const body = readFileSync(file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  const [base, extension] = name.split('.');
  return { body, type, url: `/app/assets/${base}.${hash}.${extension}` };
}

const ASSETS: Record<AssetName, Asset> = {
  'console.css': load('console.css', new URL('assets/console.css', import.meta.url).pathname, 'text/css'),
  'console.js': load('console.js', new URL('assets/console.js', import.meta.url).pathname, 'text/javascript'),
  'htmx.js': load('htmx.js', require.resolve('htmx.org/dist/htmx.min.js'), 'text/javascript'),
};

const BY_URL = new Map(Object.values(ASSETS).map((asset) => [asset.url, asset]));

export function assetUrl(name: AssetName): string {
  return ASSETS[name].url;
}

const YEAR_SECONDS = 365 * 24 * 3600;

/** Answers /app/assets/<name>.<hash>.<ext>; anything else falls through (the 404 page). */
export function serveAssets() {
  return (req: Request, res: Response, next: () => void) => {
    const asset = BY_URL.get(`/app/assets${req.path}`);
    if (!asset || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    res.setHeader('Cache-Control', `public, max-age=${YEAR_SECONDS}, immutable`);
    res.type(asset.type).send(asset.body);
  };
}
