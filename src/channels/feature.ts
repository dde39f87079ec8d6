// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it:
// each registered channel's routes (its configuration, and what its providers call), its tables of
// sealed secrets, and what to close on shutdown. Nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { channelConsole } from './console.ts';
import { closeChannels } from './index.ts';
import { CHANNEL_REGISTRY } from './registry.ts';
import { channelSecretStores } from './secretStore.ts';

export const feature: Feature = {
  name: 'channels',
  routes: CHANNEL_REGISTRY.flatMap((channel) => channel.routes),
  console: channelConsole,
  secretStores: channelSecretStores,
  // Pooled SMTP connections hold sockets: closed with the context, before its database.
  attach: () => closeChannels,
};
