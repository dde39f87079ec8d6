// The worker loads each feature's background (src/app/features.ts) and none of the web process:
// no feature.ts, no feature's routes, pages or console pages, not src/app/web.ts. Measured in a
// fresh process (a module loaded once stays loaded), by a load hook that records every module.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The modules of src/ that importing `module` (as bin/ does) loads, relative to the root. */
function modulesLoadedBy(module: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    await import(${JSON.stringify(path.join(ROOT, module))});
    process.stdout.write(JSON.stringify(loaded));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  const prefix = `file://${ROOT}/`;
  return (JSON.parse(output.toString()) as string[])
    .filter((url) => url.startsWith(`${prefix}src/`))
    .map((url) => url.slice(prefix.length));
}

const WEB_ONLY =
  /^src\/([^/]+\/(feature|routes|pages|consolePages)\.ts|app\/(web|wholeFeatures|console|pages)\.ts)$/;

describe('the worker process', function () {
  // Two fresh processes load a thousand modules each: seconds, more on a busy machine.
  this.timeout(180_000);
  let worker: string[];
  let web: string[];
  before(() => {
    worker = modulesLoadedBy('src/app/processes.ts');
    web = modulesLoadedBy('src/app/web.ts');
  });

  it('loads every feature background and nothing only the web process needs', () => {
    expect(worker.filter((module) => WEB_ONLY.test(module))).to.deep.equal([]);
    expect(worker).to.include('src/app/worker.ts');
    expect(worker).to.include('src/campaigns/background.ts');
  });

  it('is a smaller program than the web process', () => {
    expect(web).to.include('src/campaigns/feature.ts');
    expect(worker.length).to.be.below(web.length * 0.75);
  });
});
