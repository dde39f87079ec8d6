// `npm run lint` runs this: dependency-cruiser over src/ and bin/ with .dependency-cruiser.cjs,
// failing on any violation (each printed with the offending import) and also when a source file
// is missing from the graph. Without a parser that reads this TypeScript (TypeScript 5.9 here, see below), the cruiser
// reads nothing, reports "0 modules cruised" and every rule passes: the count guards against that.
import { readdirSync } from 'node:fs';
import { createRequire, registerHooks } from 'node:module';
import path from 'node:path';

// dependency-cruiser parses TypeScript with the `typescript` package's compiler API, which
// TypeScript 7 (the project's type checker, a native port) no longer has: with it, the cruiser
// reads nothing. Its own `typescript` is therefore TypeScript 5.9, installed under the alias
// `typescript-for-depcruise` and handed to it here. (swc, the other parser it takes, ships
// platform packages that the registry here does not all have, so `npm ci` refuses its lock.)
registerHooks({
  resolve(specifier, context, nextResolve) {
    const fromCruiser = context.parentURL?.includes('/node_modules/dependency-cruiser/') ?? false;
    const typescript = specifier === 'typescript' || specifier.startsWith('typescript/');
    return nextResolve(
      fromCruiser && typescript ? `typescript-for-depcruise${specifier.slice(10)}` : specifier,
      context,
    );
  },
});
const { cruise, format } = await import('dependency-cruiser');

const ROOTS = ['src', 'bin'];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

const require = createRequire(import.meta.url);
const configuration = require('../../.dependency-cruiser.cjs');
const result = await cruise(ROOTS, {
  ...configuration.options,
  ruleSet: { forbidden: configuration.forbidden },
  validate: true,
});
if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a result');

const cruised = new Set(result.output.modules.map((module) => module.source));
const expected = ROOTS.flatMap(sourceFiles);
const missing = expected.filter((file) => !cruised.has(file));
const report = await format(result.output, { outputType: 'err-long' });
process.stdout.write(report.output as string);

if (missing.length > 0) {
  process.stderr.write(
    `dependency-cruiser did not read ${missing.length} of ${expected.length} source files ` +
      `(is typescript-for-depcruise installed?), e.g. ${missing.slice(0, 3).join(', ')}\n`,
  );
  process.exitCode = 1;
} else if (result.output.summary.violations.some((violation) => violation.rule.severity === 'error')) {
  process.exitCode = 1;
} else {
  process.stdout.write(`imports: ${expected.length} source files, all read; no violation\n`);
}
