// What the composition layer collects from channels: its routes, and what to close on shutdown.
import { emailFeedbackRoutes } from './email/feedbackRoutes.ts';
import { emailChannelRoutes } from './email/routes.ts';
import { pushChannelRoutes } from './push/routes.ts';
import { telegramChannelRoutes } from './telegram/routes.ts';

export const routes = [
  ...emailChannelRoutes,
  ...emailFeedbackRoutes,
  ...pushChannelRoutes,
  ...telegramChannelRoutes,
];

export { closeChannels as shutdown } from './index.ts';
export { channelSecretStores as secretStores } from './secretStore.ts';
