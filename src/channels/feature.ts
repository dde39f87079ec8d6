// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { emailFeedbackRoutes } from './email/feedbackRoutes.ts';
import { emailChannelRoutes } from './email/routes.ts';
import { closeChannels } from './index.ts';
import { pushChannelRoutes } from './push/routes.ts';
import { channelSecretStores } from './secretStore.ts';
import { telegramChannelRoutes } from './telegram/routes.ts';

export const feature: Feature = {
  name: 'channels',
  routes: [...emailChannelRoutes, ...emailFeedbackRoutes, ...pushChannelRoutes, ...telegramChannelRoutes],
  secretStores: channelSecretStores,
  // Pooled SMTP connections hold sockets: closed with the context, before its database.
  attach: () => closeChannels,
};
