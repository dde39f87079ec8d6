// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { installSigninCommands } from './commands.ts';
import { passwordRoutes } from './passwordRoutes.ts';
import { accountRoutes } from './routes.ts';

export { limitPasswordHashing } from './hashingQueue.ts';
export { installAccountPages as pages } from './pages.ts';

export const routes = [...accountRoutes, ...passwordRoutes];
export const commands = installSigninCommands;
export { accountRetention as retention } from './retention.ts';
