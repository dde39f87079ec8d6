#!/usr/bin/env node
// The web process (Procfile `web`): HTTP only. Migrations run in the `release` phase.
import { runWeb } from '../src/app/processes.ts';

await runWeb();
