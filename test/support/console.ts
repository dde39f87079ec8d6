// Helpers for the console's tests: pages over HTTP with a session (and their CSRF token), and in
// Chromium: signing a browser page in, and axe-core's accessibility check.
//
//   const { client, workspaceId } = await workspaceWithAdmin();
//   const page = await consolePage(client, `/app/${workspaceId}/contacts`);   // 200, HTML, page.token
//   await postConsoleForm(client, path, { _csrf: page.token, … })
//
//   const { page: tab, close } = await isolatedPage(browser);   // cookies of its own
//   await signInBrowser(tab, user.email);                 // lands where /auth/signin?next= says
//   await expectAccessible(tab);                          // no serious or critical axe violation
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { Parser } from 'htmlparser2';
import type { Browser, Page } from 'puppeteer-core';
import type { Client, TestResponse } from './client.ts';
import { PASSWORD } from './factories.ts';
import { postForm } from './helpers.ts';
import { server } from './server.ts';

export type ConsoleResponse = TestResponse & { token: string };

/** A console page fetched with the client's session: 200 and HTML expected unless `status` says. */
export async function consolePage(client: Client, path: string, status = 200): Promise<ConsoleResponse> {
  const response = await client.get(path);
  expect(response.status, `${path}: ${response.text.slice(0, 500)}`).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^text\/html/);
  return { ...response, token: /name="_csrf" value="([^"]+)"/.exec(response.text)?.[1] ?? '' };
}

/** Posts a console form (urlencoded); the client keeps the CSRF cookie from consolePage. */
export function postConsoleForm(client: Client, path: string, fields: Record<string, string>) {
  return postForm(client, path, fields);
}

/** Follows a 303 the way a browser would and returns the page it leads to. */
export async function followRedirect(client: Client, response: TestResponse, status = 200) {
  expect(response.status, response.text.slice(0, 300)).to.equal(303);
  return consolePage(client, response.headers.get('location')!, status);
}

export function url(path: string): string {
  return server().baseUrl + path;
}

/**
 * A page in a browser context of its own (cookies not shared with other tests' pages); `close`
 * ends the context: `const { page, close } = await isolatedPage(browser); try { … } finally { await close(); }`
 */
export async function isolatedPage(browser: Browser): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  return { page, close: () => context.close() };
}

/** Signs a browser page in through the sign-in form, going on to `next` (default: /app). */
export async function signInBrowser(page: Page, email: string, next = '/app', password = PASSWORD) {
  await page.goto(url(`/auth/signin?next=${encodeURIComponent(next)}`));
  await page.type('#email', email);
  await page.type('#password', password);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
}

type AxeViolation = { id: string; impact?: string | null; help: string; nodes: { target: unknown }[] };

// axe-core's minified build, 654 KB: `axe.source` is the unminified one, 1.48 MB, which every check
// sent through the DevTools protocol for the page to parse. Measured on a small page, 8 checks
// each, alternately: Chromium 88–110 against 115–238 ms of CPU a check, this process 15 against 26.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not
 * restrict) and fails on any serious or critical violation, naming each with its elements.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is the global the source above defined
    const result = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations;
  })) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const described = serious.map(
    (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
  );
  expect(described, `accessibility of ${page.url()}`).to.deep.equal([]);
}

/** The page's width against the viewport's: a horizontal scrollbar means content overflows. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * Fails when the page holds anything a browser would run: an element with an on* handler, a
 * script or iframe without a src of ours, an <img> or <object>, or a javascript: link. Parsed as a
 * browser parses it, so a hostile value shown as text passes and one that became markup fails.
 */
export function expectInert(page: string, where = 'page'): void {
  const found: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      for (const [attribute, value] of Object.entries(attributes)) {
        if (/^on/i.test(attribute)) found.push(`<${name} ${attribute}>`);
        if (
          /^(href|src|action|formaction)$/i.test(attribute) &&
          /^\s*(javascript|data|vbscript):/i.test(value)
        )
          found.push(`<${name} ${attribute}="${value}">`);
      }
      if (name === 'script' && !/^\/app\/assets\//.test(attributes.src ?? ''))
        found.push('<script> not of ours');
      if (['img', 'iframe', 'object', 'embed', 'base'].includes(name)) found.push(`<${name}>`);
    },
  });
  parser.write(page);
  parser.end();
  expect(found, where).to.deep.equal([]);
}
