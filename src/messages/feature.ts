// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { background } from './background.ts';
import { channelReceiverRoutes } from './channelEffects.ts';
import { messageConsole } from './consolePages.ts';
import { messageRoutes } from './routes.ts';
import { installUnsubscribePages } from './unsubscribePages.ts';

export const feature: Feature = {
  ...background,
  // Channels' receivers change messages and subscriptions: they are mounted with this feature's.
  routes: [...messageRoutes, ...channelReceiverRoutes],
  pages: installUnsubscribePages,
  console: messageConsole,
};

export { messagesPanel, subscriptionsPanel } from './console.ts';
