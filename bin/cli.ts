#!/usr/bin/env node
// `switchboard`: administration from the command line (src/app/program.ts). `import` builds only
// its own command (src/app/importProgram.ts): its process holds a file's worth of rows in flight
// and should not carry every feature's routes and pages beside them.
// Node's compile cache keeps the type-stripped, compiled modules between runs (NODE_COMPILE_CACHE,
// or the OS temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off): stripping the types of
// ~300 modules through Node's WebAssembly compiler is nearly half the CPU of a cold start.
import module from 'node:module';

module.enableCompileCache();

if (process.argv[2] === 'import') {
  const { runImportCli } = await import('../src/app/importProgram.ts');
  await runImportCli(process.argv);
} else {
  const { runCli } = await import('../src/app/program.ts');
  await runCli(process.argv);
}
