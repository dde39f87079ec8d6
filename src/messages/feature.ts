// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { channelReceiverRoutes } from './channelEffects.ts';
import { messageConsole } from './consolePages.ts';
import { messageJobs } from './jobs.ts';
import { messageRetention } from './retention.ts';
import { messageRoutes } from './routes.ts';
import { installUnsubscribePages } from './unsubscribePages.ts';

export const feature: Feature = {
  name: 'messages',
  // Channels' receivers change messages and subscriptions: they are mounted with this feature's.
  routes: [...messageRoutes, ...channelReceiverRoutes],
  pages: installUnsubscribePages,
  jobs: messageJobs,
  retention: messageRetention,
  console: messageConsole,
};

export { messagesPanel, subscriptionsPanel } from './console.ts';
