// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// the console's import job and retention. Its feature.ts adds the routes and pages; nothing else
// imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { consoleImportJob } from './consoleJob.ts';
import { importRetention } from './retention.ts';

export const background: FeatureBackground = {
  name: 'imports',
  jobs: () => [consoleImportJob],
  retention: importRetention,
};
