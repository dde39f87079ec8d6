// Headless Chromium for the tests that need a real browser (puppeteer-core drives Debian's
// chromium-headless-shell, or CHROMIUM_PATH; `npm test` installs it beside the suite, see
// ensureChromium.ts).
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { CHROMIUM, HEADLESS } from './chromiumPath.ts';

/** How long a browser file's first hook may wait for the install (apt on a fresh machine). */
const INSTALL_WAIT_MS = 5 * 60_000;

/**
 * Under `npm test` Chromium may still be installing (test/support/runSuite.ts installs it beside the
 * suite): wait for the install's outcome, an empty file when it succeeded, else what went wrong.
 */
async function chromiumInstalled(): Promise<void> {
  const outcomeFile = process.env.TEST_CHROMIUM_OUTCOME;
  if (!outcomeFile) return;
  for (;;) {
    let outcome: string;
    try {
      outcome = readFileSync(outcomeFile, 'utf8');
    } catch {
      await sleep(250);
      continue;
    }
    if (outcome === '') return;
    throw new Error(`Chromium is not installed:\n${outcome}`);
  }
}

async function launchChromium(): Promise<Browser> {
  await chromiumInstalled();
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: HEADLESS,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

// One Chromium per process, shared by the files it runs: a launch costs about a CPU-second (the
// browser, its zygotes, GPU and network processes), and some twenty files drive a browser. Tests
// isolate themselves in browser contexts of their own (test/support/console.ts isolatedPage); what
// a file leaves open is closed after it. Puppeteer kills the browser when the process exits.
let shared: Promise<Browser> | undefined;

async function sharedChromium(): Promise<Browser> {
  const browser = shared ? await shared.catch(() => undefined) : undefined;
  if (browser?.connected) return browser;
  shared = launchChromium();
  return shared;
}

/** Closes the pages and contexts opened since `before` (the browser's own first page stays). */
async function closeOpenedSince(browser: Browser, before: { contexts: BrowserContext[]; pages: Page[] }) {
  if (!browser.connected) return;
  for (const context of browser.browserContexts()) {
    if (!before.contexts.includes(context)) await context.close();
  }
  for (const page of await browser.defaultBrowserContext().pages()) {
    if (!before.pages.includes(page)) await page.close();
  }
}

/**
 * Chromium for the enclosing describe block: `holder.browser` is set before its tests run. It is
 * this process's shared browser, unless `ownBrowser` (a test that changes the browser itself, its
 * default context's permissions or service workers): then one launched for the block alone.
 */
export function suiteChromium(options: { ownBrowser?: boolean } = {}): { browser: Browser } {
  const holder = {} as { browser: Browser };
  let opened = { contexts: [] as BrowserContext[], pages: [] as Page[] };
  before(async function () {
    // A fresh machine may still be installing Chromium (chromiumInstalled): minutes, not seconds.
    this.timeout(INSTALL_WAIT_MS);
    holder.browser = options.ownBrowser ? await launchChromium() : await sharedChromium();
    const pages = await holder.browser.defaultBrowserContext().pages();
    opened = { contexts: holder.browser.browserContexts(), pages };
  });
  after(async () => {
    if (!holder.browser) return;
    if (options.ownBrowser) await holder.browser.close();
    else await closeOpenedSince(holder.browser, opened);
  });
  return holder;
}
