#!/usr/bin/env node
// `switchboard`: administration from the command line (src/app/program.ts). `import` builds only
// its own command (src/app/importProgram.ts): its process holds a file's worth of rows in flight
// and should not carry every feature's routes and pages beside them.
if (process.argv[2] === 'import') {
  const { runImportCli } = await import('../src/app/importProgram.ts');
  await runImportCli(process.argv);
} else {
  const { runCli } = await import('../src/app/program.ts');
  await runCli(process.argv);
}
