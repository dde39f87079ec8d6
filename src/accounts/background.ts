// What this feature brings to every process, the worker's above all (src/app/features.ts lists it):
// the password-reset mail job, retention, and the password hashing queue's limits. Its feature.ts
// adds the routes and pages; nothing else imports this module.
import type { FeatureBackground } from '../feature/definition.ts';
import { limitPasswordHashing } from './hashingQueue.ts';
import { resetMailJob } from './passwordReset.ts';
import { accountRetention } from './retention.ts';

export const background: FeatureBackground = {
  name: 'accounts',
  jobs: () => [resetMailJob],
  retention: accountRetention,
  configure: (config) =>
    limitPasswordHashing({
      concurrency: config.PASSWORD_HASH_CONCURRENCY,
      queue: config.PASSWORD_HASH_QUEUE,
    }),
};
