// Headless Chromium for the tests that need a real browser (puppeteer-core drives Debian's
// chromium, or CHROMIUM_PATH; `npm test` installs it first, see ensureChromium.ts).
import puppeteer, { type Browser } from 'puppeteer-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

/** Chromium for the enclosing describe block: `holder.browser` is set before its tests run. */
export function suiteChromium(): { browser: Browser } {
  const holder = {} as { browser: Browser };
  before(async () => {
    holder.browser = await launchChromium();
  });
  after(() => holder.browser?.close());
  return holder;
}
