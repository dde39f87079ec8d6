// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it: its background (background.ts) and each registered channel's routes (its configuration,
// and what its providers call). Nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { background } from './background.ts';
import { channelConsole } from './console.ts';
import { CHANNEL_REGISTRY } from './registry.ts';

export const feature: Feature = {
  ...background,
  routes: CHANNEL_REGISTRY.flatMap((channel) => channel.routes),
  console: channelConsole,
};
