// What the composition layer collects from channels: its routes (email, push), and what to close on shutdown.
import { emailChannelRoutes } from './email/routes.ts';
import { pushChannelRoutes } from './push/routes.ts';

export const routes = [...emailChannelRoutes, ...pushChannelRoutes];

export { closeChannels as shutdown } from './index.ts';
