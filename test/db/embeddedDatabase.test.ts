// Start-up failures of the embedded PostgreSQL say what is wrong and what to do.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { freePort } from '../../src/db/embedded.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('embedded database start-up', function () {
  this.timeout(60_000);

  // Only root runs PostgreSQL as another user (`postgres`); for anyone else the directory is theirs,
  // so the same start-up must not be refused (it runs until the timeout ends it).
  const asRoot = process.getuid?.() === 0;
  it('a DATA_DIR the postgres user cannot reach is refused with what to do (as root; others start)', async () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'switchboard-private-'));
    chmodSync(parent, 0o700);
    try {
      const result = spawnSync(process.execPath, [path.join(ROOT, 'bin/start.ts')], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: asRoot ? 50_000 : 20_000,
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'test',
          DATA_DIR: path.join(parent, 'data'),
          PORT: String(await freePort()),
          EMBEDDED_PG_PORT: String(await freePort()),
        },
      });
      const output = result.stdout + result.stderr;
      if (!asRoot) {
        expect(output).to.not.contain('may not enter');
        expect(output).to.contain('listening');
        return;
      }
      expect(result.status, output).to.equal(1);
      expect(output).to.contain(`may not enter ${parent}`);
      expect(output).to.contain('Set DATA_DIR to a directory outside it').and.contain('DATABASE_URL');
      expect(output).to.not.contain('initdb');
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
