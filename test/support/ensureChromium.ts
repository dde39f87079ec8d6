// `npm test` runs this beside the suite (test/support/runSuite.ts): the console's and the unsubscribe
// page's tests drive headless Chromium, which no npm package may download here. Debian's
// `chromium-headless-shell` (test/support/chromiumPath.ts says why that one) is installed when it is
// missing and we may (root with apt-get, as on a fresh machine of this project's kind); otherwise it
// says what to do.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM, CHROMIUM_PACKAGE } from './chromiumPath.ts';

function install(): boolean {
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  console.log(
    `test: installing Debian’s ${CHROMIUM_PACKAGE} for the browser tests (console, unsubscribe page)…`,
  );
  // Without its recommends (udev, upower, printing, notification and Samba libraries, and the
  // systemd and Perl upgrades they pull) the install is a fifth of the packages: on this project's
  // machine the full browser took 19 packages in 8.5 s against 107 in 15.3 s (128 s on a fresh
  // machine). The tests need the browser and a font; fonts-liberation is the one recommend kept.
  return (
    apt(['update', '-qq']) &&
    apt(['install', '-y', '-qq', '--no-install-recommends', CHROMIUM_PACKAGE, 'fonts-liberation'])
  );
}

if (!existsSync(CHROMIUM)) {
  const canInstall = process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0;
  if (!canInstall || !install() || !existsSync(CHROMIUM)) {
    console.error(
      `test: no Chromium at ${CHROMIUM}. Install Debian's ${CHROMIUM_PACKAGE} package ` +
        `(apt-get install ${CHROMIUM_PACKAGE}) or set CHROMIUM_PATH to a Chromium or Chrome binary.`,
    );
    process.exit(1);
  }
}
