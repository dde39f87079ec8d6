#!/usr/bin/env node
// The worker process (Procfile `worker`): webhook delivery, scheduled and queued jobs.
// Node's compile cache keeps the type-stripped, compiled modules between runs (NODE_COMPILE_CACHE,
// or the OS temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off): stripping the types of
// ~300 modules through Node's WebAssembly compiler is nearly half the CPU of a cold start.
import module from 'node:module';

module.enableCompileCache();

// Imported after the cache is on, so that it serves them.
const { runWorker } = await import('../src/app/processes.ts');
await runWorker();
