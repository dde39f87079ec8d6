// The entry of a thread that checks chunks of an NDJSON import (src/imports/checkChunk.ts) for
// src/imports/checkThreads.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { rowIds } from './bulkIds.ts';
import { type CheckSetup, type ChunkRequest, checkChunk } from './checkChunk.ts';

const setup = workerData as CheckSetup;
const ids = rowIds(setup.seed);

parentPort!.on('message', (request: ChunkRequest) =>
  parentPort!.postMessage(checkChunk(setup, ids, request)),
);
