#!/usr/bin/env node
// The worker process (Procfile `worker`): webhook delivery, scheduled and queued jobs.
import { runWorker } from '../src/app/processes.ts';

await runWorker();
