// `npm test` runs this first: the console's and the unsubscribe page's tests drive headless Chromium, which no
// npm package may download here. Debian's `chromium` is installed when it is missing and we may
// (root with apt-get, as on a fresh machine of this project's kind); otherwise it says what to do.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function install(): boolean {
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  console.log('test: installing Debian’s chromium for the browser tests (console, unsubscribe page)…');
  return apt(['update', '-qq']) && apt(['install', '-y', '-qq', 'chromium']);
}

if (!existsSync(CHROMIUM)) {
  const canInstall = process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0;
  if (!canInstall || !install() || !existsSync(CHROMIUM)) {
    console.error(
      `test: no Chromium at ${CHROMIUM}. Install Debian's chromium package ` +
        '(apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary.',
    );
    process.exit(1);
  }
}
