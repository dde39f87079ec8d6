// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// its tables of sealed secrets and what to close on shutdown. Its feature.ts adds the routes and
// pages; nothing else imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { closeChannels } from './index.ts';
import { channelSecretStores } from './secretStore.ts';

export const background: FeatureBackground = {
  name: 'channels',
  secretStores: channelSecretStores,
  // Pooled SMTP connections hold sockets: closed with the context, before its database.
  attach: () => closeChannels,
};
