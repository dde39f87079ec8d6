// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// the dispatcher, retention, its sealed secrets and the sealing after migrating. Its feature.ts
// adds the routes and pages; nothing else imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { webhookDispatcher } from './dispatcher.ts';
import { webhookRetention } from './retention.ts';
import { sealPlaintextSecrets, webhookSecretStore } from './signingSecrets.ts';

export const background: FeatureBackground = {
  name: 'webhooks',
  workerServices: [webhookDispatcher],
  retention: webhookRetention,
  secretStores: [webhookSecretStore],
  // The migration that sealed the column left the existing secrets in clear text (SQL cannot encrypt).
  afterMigrate: sealPlaintextSecrets,
};
