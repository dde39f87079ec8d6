#!/usr/bin/env node
// The `switchboard` command (package.json "bin"). Plain JavaScript on purpose: the CLI itself
// (bin/cli.ts) is TypeScript run by Node 24's type stripping, and whichever `node` is first on
// the PATH may be older (Node 20 fails on a .ts file with ERR_UNKNOWN_FILE_EXTENSION). Such a
// Node hands the command over to the Node 24 that the `node` devDependency installs.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

const NEEDED_MAJOR = 24;
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const bundledNode = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));

function canRunTypeScript() {
  const major = Number(process.versions.node.split('.')[0]);
  // `process.features.typescript` is 'strip' (or 'transform') when type stripping is on; it is
  // absent before Node 22.10 and false under --no-experimental-strip-types.
  return major >= NEEDED_MAJOR && Boolean(process.features.typescript);
}

// `import` streams a whole file through validation at a high allocation rate: left to itself, V8
// grows its young generation by ~100 MB it does not need (the live heap stays ~50 MB). Heap flags
// take effect only when a process starts, so an import runs in a Node of its own with them.
const NODE_FLAGS = process.argv[2] === 'import' ? ['--max-semi-space-size=8'] : [];

function handOver(node) {
  const child = spawn(node, [...NODE_FLAGS, cli, ...process.argv.slice(2)], { stdio: 'inherit' });
  // A signal sent to this process alone (kill <pid>) must reach the CLI, which may be replaying
  // and owes a summary; a terminal's Ctrl-C reaches both, and the CLI takes a repeat in its stride.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('error', (error) => {
    process.stderr.write(`error: could not start ${node}: ${error.message}\n`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? 128 + (constants.signals[signal] ?? 0);
  });
}

if (canRunTypeScript() && NODE_FLAGS.length > 0) {
  handOver(process.execPath);
} else if (canRunTypeScript()) {
  await import(new URL('./cli.ts', import.meta.url).href);
} else if (existsSync(bundledNode)) {
  handOver(bundledNode);
} else {
  process.stderr.write(
    `error: switchboard needs Node ${NEEDED_MAJOR} or newer with type stripping; this is Node ${process.version}.\n` +
      `Run \`npm install\` in ${fileURLToPath(new URL('..', import.meta.url))} (its \`node\` devDependency provides Node ${NEEDED_MAJOR}), ` +
      `or put Node ${NEEDED_MAJOR} first on the PATH.\n`,
  );
  process.exitCode = 1;
}
