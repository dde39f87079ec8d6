#!/usr/bin/env node
// `npm start`: the zero-setup way to run Switchboard. Uses DATABASE_URL or an embedded
// PostgreSQL under DATA_DIR, applies migrations, then runs web and worker in one process.
// Node's compile cache keeps the type-stripped, compiled modules between runs (NODE_COMPILE_CACHE,
// or the OS temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off): stripping the types of
// ~300 modules through Node's WebAssembly compiler is nearly half the CPU of a cold start.
import module from 'node:module';

module.enableCompileCache();

// Imported after the cache is on, so that it serves them.
const { runStart } = await import('../src/app/processes.ts');
await runStart();
