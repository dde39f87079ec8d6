// Headless Chromium for the tests that drive pages in a real browser (puppeteer-core; the binary
// is Debian's chromium, or CHROMIUM_PATH): launched before the enclosing describe block, closed after.
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
