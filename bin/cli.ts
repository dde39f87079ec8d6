#!/usr/bin/env node
// `switchboard`: administration from the command line. Each command group lives in src/cli/.
import { Command } from 'commander';
import { installAccountCommands } from '../src/cli/accounts.ts';
import { installKeyCommands } from '../src/cli/keys.ts';
import { installSegmentCommands } from '../src/cli/segments.ts';
import { installSigninCommands } from '../src/cli/signin.ts';
import { installWebhookCommands } from '../src/cli/webhooks.ts';
import { VERSION } from '../src/runtime.ts';

const program = new Command('switchboard')
  .description('Switchboard administration')
  .version(VERSION)
  .showHelpAfterError();

installAccountCommands(program);
installKeyCommands(program);
installSegmentCommands(program);
installSigninCommands(program);
installWebhookCommands(program);

await program.parseAsync(process.argv);
