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
  // Without its recommends (udev, upower, printing, notification and Samba libraries, and the
  // systemd and Perl upgrades they pull) the install is a fifth of the packages: on this project's
  // machine 19 packages in 8.5 s against 107 in 15.3 s (128 s on a fresh machine). The tests need
  // only the browser and a font; fonts-liberation is the one of its recommends kept.
  return (
    apt(['update', '-qq']) &&
    apt(['install', '-y', '-qq', '--no-install-recommends', 'chromium', 'fonts-liberation'])
  );
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
