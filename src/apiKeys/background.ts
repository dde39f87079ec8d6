// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// how authentication finds an API key. Its feature.ts adds the routes and pages; nothing else
// imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { apiKeyLookup } from './lookup.ts';

export const background: FeatureBackground = {
  name: 'apiKeys',
  apiKeyLookup,
};
