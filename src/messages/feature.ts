// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { messageJobs } from './jobs.ts';
import { messageRetention } from './retention.ts';
import { messageRoutes } from './routes.ts';
import { installUnsubscribePages } from './unsubscribePages.ts';

export const feature: Feature = {
  name: 'messages',
  routes: messageRoutes,
  pages: installUnsubscribePages,
  jobs: messageJobs,
  retention: messageRetention,
};

export { messagesPanel, subscriptionsPanel } from './console.ts';
