// The process wiring in one import, for the entry points, the test server and the benchmarks.
export { resolveDatabase, type Stoppable } from '../db/resolve.ts';
export { VERSION } from '../version.ts';
export { closeContext, createContext, migrateAll } from './context.ts';
export { onShutdown } from './lifecycle.ts';
export { createApp, startWeb } from './web.ts';
export { startWorker } from './worker.ts';
