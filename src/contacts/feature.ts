// What the composition layer (src/app/) collects from this feature; nothing else imports it.
import { contactRoutes } from './routes.ts';

export { installContactsChangedEffect } from './effects.ts';

export const routes = contactRoutes;
export { contactConsole as consolePages } from './console.ts';
export { contactRetention as retention } from './retention.ts';
