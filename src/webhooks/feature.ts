// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { installWebhookCommands } from './commands.ts';
import { webhookDispatcher } from './dispatcher.ts';
import { webhookRoutes } from './routes.ts';

export const routes = webhookRoutes;
export const workerServices = [webhookDispatcher];
export const commands = installWebhookCommands;
export { webhookRetention as retention } from './retention.ts';
export { sealPlaintextSecrets, webhookSecretStore as secretStore } from './signingSecrets.ts';
