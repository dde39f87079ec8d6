// The pieces every HTML page shares: the layout (with the favicon), escaping, the double-submit
// CSRF token of the forms, and the local-only `next` redirect.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

const CSRF_COOKIE = 'sb.csrf';

/** A small switchboard icon: two jacks joined by a cord. Served at /favicon.ico. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#2f5bea"/>
<path d="M10 11 C 10 20, 22 12, 22 21" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/>
<circle cx="10" cy="10" r="3.5" fill="#fff"/><circle cx="22" cy="22" r="3.5" fill="#fff"/>
</svg>`;

export const FAVICON_LINK = '<link rel="icon" href="/favicon.ico" type="image/svg+xml">';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Switchboard</title>
${FAVICON_LINK}
<style>
  body { font: 16px/1.5 system-ui, sans-serif; background: #f5f6f8; color: #1d2433; margin: 0; }
  main { max-width: 26rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 8px;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1.4rem; margin-top: 0; } label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
  input { width: 100%; box-sizing: border-box; padding: .55rem; border: 1px solid #b8bfcc; border-radius: 4px; font: inherit; }
  button { margin-top: 1.25rem; width: 100%; padding: .6rem; border: 0; border-radius: 4px; background: #2f5bea;
           color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
  .error { background: #fdecec; color: #a11; padding: .6rem .8rem; border-radius: 4px; }
  .notice { background: #e7f6ec; color: #14532d; padding: .6rem .8rem; border-radius: 4px; }
  ul { padding-left: 1.2rem; } code { background: #eef0f4; padding: 0 .25rem; border-radius: 3px; }
</style></head><body><main>${body}</main></body></html>`;
}

export function csrfToken(req: Request, res: Response): string {
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

export function validCsrf(req: Request): boolean {
  const cookie = req.get('cookie')?.match(/(?:^|;\s*)sb\.csrf=([A-Za-z0-9_-]{20,})/)?.[1];
  const field = typeof req.body?._csrf === 'string' ? req.body._csrf : '';
  if (!cookie || cookie.length !== field.length) return false;
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(field));
}

export function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : '/';
}

/** The sign-out form (a POST with the CSRF token: a link would let any page sign you out). */
export function signoutForm(token: string): string {
  return `<form method="post" action="/auth/signout"><input type="hidden" name="_csrf" value="${token}">
<button type="submit">Sign out</button></form>`;
}
