// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { installWebhookCommands } from './commands.ts';
import { webhookConsole } from './console.ts';
import { webhookDispatcher } from './dispatcher.ts';
import { webhookRetention } from './retention.ts';
import { webhookRoutes } from './routes.ts';
import { sealPlaintextSecrets, webhookSecretStore } from './signingSecrets.ts';

export const feature: Feature = {
  name: 'webhooks',
  routes: webhookRoutes,
  console: webhookConsole,
  workerServices: [webhookDispatcher],
  commands: installWebhookCommands,
  retention: webhookRetention,
  secretStores: [webhookSecretStore],
  // The migration that sealed the column left the existing secrets in clear text (SQL cannot encrypt).
  afterMigrate: sealPlaintextSecrets,
};
