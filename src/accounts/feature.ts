// What this feature brings to the service, as the composition layer (src/app/features.ts) reads it;
// nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { installSigninCommands } from './commands.ts';
import { installAccountConsole } from './console.ts';
import { limitPasswordHashing } from './hashingQueue.ts';
import { installAccountPages } from './pages.ts';
import { resetMailJob } from './passwordReset.ts';
import { passwordRoutes } from './passwordRoutes.ts';
import { accountRetention } from './retention.ts';
import { accountRoutes } from './routes.ts';

export const feature: Feature = {
  name: 'accounts',
  routes: [...accountRoutes, ...passwordRoutes],
  pages: installAccountPages,
  consoleRoot: installAccountConsole,
  commands: installSigninCommands,
  jobs: () => [resetMailJob],
  retention: accountRetention,
  configure: (config) =>
    limitPasswordHashing({
      concurrency: config.PASSWORD_HASH_CONCURRENCY,
      queue: config.PASSWORD_HASH_QUEUE,
    }),
};
