// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// its table of sealed secrets. Its feature.ts adds the routes and pages; nothing else imports this
// module.
import type { FeatureBackground } from '../feature/definition.ts';
import { identitySecretStore } from './secretStore.ts';

export const background: FeatureBackground = {
  name: 'publicKeys',
  secretStores: [identitySecretStore],
};
