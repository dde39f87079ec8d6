// What the composition layer collects from channels: its routes, and what to close on shutdown.
import { emailChannelRoutes } from './email/routes.ts';

export const routes = [...emailChannelRoutes];

export { closeChannels as shutdown } from './index.ts';
export { channelSecretStore as secretStore } from './secretStore.ts';
