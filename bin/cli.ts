#!/usr/bin/env node
// `switchboard`: administration from the command line (src/app/program.ts). A command group one
// feature owns (`keys`, `import`, …) loads only that feature's commands (src/app/featureProgram.ts).
// Node's compile cache keeps the type-stripped, compiled modules between runs (NODE_COMPILE_CACHE,
// or the OS temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off): stripping the types of
// ~300 modules through Node's WebAssembly compiler is nearly half the CPU of a cold start.
import module from 'node:module';

module.enableCompileCache();

const { hasOwnFeature, runFeatureCli } = await import('../src/app/featureProgram.ts');
if (hasOwnFeature(process.argv[2])) {
  await runFeatureCli(process.argv);
} else {
  const { runCli } = await import('../src/app/program.ts');
  await runCli(process.argv);
}
