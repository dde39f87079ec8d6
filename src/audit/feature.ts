// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { background } from './background.ts';
import { installAuditCommands } from './commands.ts';
import { auditConsole } from './console.ts';
import { auditRoutes } from './routes.ts';

export const feature: Feature = {
  ...background,
  routes: auditRoutes,
  commands: installAuditCommands,
  console: auditConsole,
};
