// One table, three views: the generated files must match it, and features must not parse the
// configuration themselves (they get it from the context they are given).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { GENERATED } from '../../src/config/docs.ts';
import { VARIABLES } from '../../src/config/variables.ts';

describe('configuration: the generated files', () => {
  for (const file of GENERATED) {
    it(`${file.path} is what the table in src/config/variables.ts generates`, () => {
      const written = readFileSync(file.path, 'utf8');
      expect(written === file.render(), `${file.path} differs from the table: run \`npm run config:docs\``).to
        .be.true;
    });
  }

  it('documents every variable, each with a description, once in each file', () => {
    const example = readFileSync('.env.example', 'utf8');
    const page = readFileSync('docs/operate/configuration.md', 'utf8');
    for (const [name, entry] of Object.entries(VARIABLES)) {
      expect(entry.description, name).to.have.length.above(10);
      expect(example.match(new RegExp(`^(# )?${name}=`, 'gm')), name).to.have.length(1);
      expect(page.match(new RegExp(`^\\| \`${name}\` `, 'gm')), name).to.have.length(1);
    }
  });
});

/** Where the configuration may be parsed: the ground module, the composition and the CLI's start. */
const PARSERS = [/^src\/config\.ts$/, /^src\/config\//, /^src\/app\//, /^src\/cli\/context\.ts$/];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

describe('configuration: who parses it', () => {
  it('no feature calls config() or configOrExit(): they read app.config / the context', () => {
    const offenders = sourceFiles('src')
      .filter((file) => !PARSERS.some((allowed) => allowed.test(file)))
      .filter((file) => /\bconfig(OrExit)?\(\)/.test(readFileSync(file, 'utf8')));
    expect(offenders, 'pass the configuration in from the context instead').to.deep.equal([]);
  });
});
