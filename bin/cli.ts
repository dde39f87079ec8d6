#!/usr/bin/env node
// `switchboard`: administration from the command line (src/app/program.ts).
import { runCli } from '../src/app/program.ts';

await runCli(process.argv);
