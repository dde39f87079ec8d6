// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { installImportCommands } from './commands.ts';

export const commands = installImportCommands;
