// The console's page layout and the headers of every console response.
//
//   sendPage(res, { title: 'Contacts', section: 'contacts', body: html`…` })
//   sendPage(res, { title: contact.email, crumbs: [{ label: 'Contacts', href: `${base}/contacts` }], body })
//   sendErrorPage(res, 404, 'Not found', 'No contact has this id in this workspace.')
//
// The layout: a skip link, the header (workspace switcher, navigation of the sections the features
// registered, theme toggle, account and sign-out), breadcrumbs, the flash message of the last form,
// the page's <main>, and a footer with the keyboard shortcuts (which console.js makes work).
// Everything reads `res.locals.console` (state.ts); a page outside the membership middleware (an
// error before it ran) gets the layout without navigation.
import type { NextFunction, Request, Response } from 'express';
import { assetUrl } from './assets.ts';
import { takeFlash } from './flash.ts';
import { html, type SafeHtml } from './html.ts';
import type { ConsoleSection, ConsoleState, Flash, Theme } from './state.ts';

export type Crumb = { label: string; href?: string };

export type Page = {
  /** The page's <h1> and <title>. */
  title: string;
  /** The trail above the title, from the workspace down; the title closes it. */
  crumbs?: Crumb[];
  /** The section the navigation marks as current (its ConsoleSection path). */
  section?: string;
  /** Beside the title: the page's main actions (a "New" link, a form). */
  actions?: SafeHtml;
  body: SafeHtml;
  status?: number;
};

/**
 * script-src 'self' and style-src 'self': no inline script, handler attribute or style attribute
 * runs, so a value that escaped escaping still could not execute. No framing (clickjacking).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every response under /app: the CSP, no framing, no caching of pages with data. */
export function consoleHeaders() {
  return (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

const THEME_NEXT: Record<Theme, Theme> = { system: 'dark', dark: 'light', light: 'system' };
const THEME_LABEL: Record<Theme, string> = {
  system: 'System theme',
  dark: 'Dark theme',
  light: 'Light theme',
};

function themeToggle(state: ConsoleState, here: string): SafeHtml {
  return html`<form method="post" action="/app/theme" class="theme-form">
<input type="hidden" name="_csrf" value="${state.csrf}"><input type="hidden" name="theme" value="${THEME_NEXT[state.theme]}">
<input type="hidden" name="next" value="${here}">
<button type="submit" class="quiet" title="Switch to ${THEME_LABEL[THEME_NEXT[state.theme]].toLowerCase()}">${THEME_LABEL[state.theme]}</button></form>`;
}

function switcher(state: ConsoleState): SafeHtml {
  const current = state.workspace?.name ?? 'Workspaces';
  const items = state.workspaces.map(
    (w) =>
      html`<li><a href="/app/${encodeURIComponent(w.id)}"${w.id === state.workspace?.id ? html` aria-current="true"` : ''}>${w.name}</a> <span class="muted">${w.role.toLowerCase()}</span></li>`,
  );
  return html`<details class="switcher"><summary><span class="visually-hidden">Workspace: </span>${current}</summary>
<ul>${items}<li><a href="/app/new">New workspace…</a></li></ul></details>`;
}

/** One entry per section, or per group of sections (its first section's link, the group's name). */
function navigationEntries(sections: readonly ConsoleSection[]) {
  const entries: { first: ConsoleSection; label: string; paths: string[] }[] = [];
  for (const s of sections) {
    const entry = s.group ? entries.find((e) => e.first.group === s.group) : undefined;
    if (entry) entry.paths.push(s.path);
    else entries.push({ first: s, label: s.group ?? s.label, paths: [s.path] });
  }
  return entries;
}

function navigation(state: ConsoleState, section: string | undefined): SafeHtml {
  if (!state.workspace) return html``;
  const base = `/app/${encodeURIComponent(state.workspace.id)}`;
  const visible = state.sections.filter((s) => !s.adminOnly || state.role === 'ADMIN');
  const links = navigationEntries(visible).map(
    ({ first, label, paths }) =>
      html`<li><a href="${base}/${first.path}"${first.key ? html` data-key="${first.key}"` : ''}${section !== undefined && paths.includes(section) ? html` aria-current="page"` : ''}>${label}</a></li>`,
  );
  return html`<nav aria-label="Sections"><ul class="sections">${links}</ul></nav>`;
}

function header(state: ConsoleState, page: Page, here: string): SafeHtml {
  return html`<header class="top">
<a class="brand" href="/app">Switchboard</a>
${switcher(state)}
${navigation(state, page.section)}
<div class="account">${themeToggle(state, here)}
<a href="/app/account">Account</a>
<a href="/docs">API</a>
<form method="post" action="/auth/signout"><input type="hidden" name="_csrf" value="${state.csrf}"><button type="submit" class="quiet">Sign out <span class="visually-hidden">${state.user.email}</span></button></form></div>
</header>`;
}

function breadcrumbs(state: ConsoleState | undefined, page: Page): SafeHtml {
  const trail: Crumb[] = [
    ...(state?.workspace
      ? [{ label: state.workspace.name, href: `/app/${encodeURIComponent(state.workspace.id)}` }]
      : []),
    ...(page.crumbs ?? []),
  ];
  if (trail.length === 0) return html``;
  const items = trail.map(
    (c) => html`<li>${c.href ? html`<a href="${c.href}">${c.label}</a>` : c.label}</li>`,
  );
  return html`<nav aria-label="Breadcrumb" class="crumbs"><ol>${items}<li aria-current="page">${page.title}</li></ol></nav>`;
}

function flashMessage(flash: Flash | null): SafeHtml {
  if (!flash) return html``;
  return html`<p class="flash flash-${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${flash.message}</p>`;
}

const SHORTCUTS: [string, string][] = [
  ['/', 'Focus the search field'],
  ['g c', 'Go to contacts'],
  ['g s', 'Go to segments'],
  ['?', 'Show this list'],
];

function footer(): SafeHtml {
  const rows = SHORTCUTS.map(([keys, what]) => html`<dt><kbd>${keys}</kbd></dt><dd>${what}</dd>`);
  return html`<footer class="foot"><details id="shortcuts"><summary>Keyboard shortcuts</summary><dl>${rows}</dl></details></footer>`;
}

export function renderPage(
  state: ConsoleState | undefined,
  page: Page,
  here: string,
  flash: Flash | null = null,
): SafeHtml {
  const theme = state?.theme ?? 'system';
  return html`<!doctype html>
<html lang="en" class="theme-${theme}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}${state?.workspace ? ` · ${state.workspace.name}` : ''} · Switchboard</title>
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"historyCacheSize":0}'>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="${assetUrl('console.css')}">
<script src="${assetUrl('htmx.js')}" defer></script><script src="${assetUrl('console.js')}" defer></script>
</head><body>
<a class="skip" href="#main">Skip to content</a>
${state ? header(state, page, here) : html`<header class="top"><a class="brand" href="/app">Switchboard</a></header>`}
<main id="main" tabindex="-1">
${breadcrumbs(state, page)}
<div class="title-row"><h1>${page.title}</h1>${page.actions ? html`<div class="title-actions">${page.actions}</div>` : ''}</div>
${flashMessage(flash)}
${page.body}
</main>
${footer()}
</body></html>`;
}

export function sendPage(res: Response, page: Page): void {
  const state = res.locals.console as ConsoleState | undefined;
  const here = res.req.originalUrl;
  res
    .status(page.status ?? 200)
    .type('html')
    .send(renderPage(state, page, here, state ? takeFlash(res.req) : null).toString());
}

export function sendErrorPage(res: Response, status: number, title: string, message: string): void {
  sendPage(res, {
    title,
    status,
    body: html`<p>${message}</p><p><a href="/app">Back to the console</a></p>`,
  });
}
