// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { installImportCommands } from './commands.ts';
import { consoleImportJob } from './consoleJob.ts';
import { importConsole } from './consolePages.ts';
import { importRetention } from './retention.ts';

export const feature: Feature = {
  name: 'imports',
  commands: installImportCommands,
  console: importConsole,
  jobs: () => [consoleImportJob],
  retention: importRetention,
};
