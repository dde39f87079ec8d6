#!/usr/bin/env node
// `npm start`: the zero-setup way to run Switchboard. Uses DATABASE_URL or an embedded
// PostgreSQL under DATA_DIR, applies migrations, then runs web and worker in one process.
import { runStart } from '../src/app/processes.ts';

await runStart();
