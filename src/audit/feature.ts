// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { installAuditCommands } from './commands.ts';
import { auditConsole } from './console.ts';
import { auditRetention } from './retention.ts';
import { auditRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'audit',
  routes: auditRoutes,
  commands: installAuditCommands,
  retention: auditRetention,
  console: auditConsole,
};
