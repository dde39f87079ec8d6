// Which Chromium the browser tests drive, read by the install (ensureChromium.ts) and the launch
// (browser.ts) alike. Debian's chromium-headless-shell by default: Chromium's old headless mode, a
// browser without the full browser's UI layers and background services. The same pages, contexts,
// clicks and axe checks cost it a quarter of the full browser's CPU (1.3–1.6 against 5.9–6.2 CPU-s
// over 20 navigations and 5 axe checks, three rounds each, alternately). CHROMIUM_PATH may name
// another Chromium or Chrome, which runs in the full browser's headless mode.

export const CHROMIUM_PACKAGE = 'chromium-headless-shell';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? `/usr/bin/${CHROMIUM_PACKAGE}`;
export const HEADLESS = /headless[-_]shell$/.test(CHROMIUM) ? 'shell' : true;
