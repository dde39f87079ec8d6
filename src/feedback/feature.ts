// What the composition layer collects from provider feedback: its routes.
import { feedbackRoutes } from './routes.ts';

export const routes = feedbackRoutes;
export { feedbackRetention as retention } from './retention.ts';
