// Messages for the composition layer: the API routes, the worker's jobs, and the public
// unsubscribe pages (mounted beside the other pages).
export { messageJobs as jobs } from './jobs.ts';
export { messageRoutes as routes } from './routes.ts';
export { installUnsubscribePages as installPages } from './unsubscribePages.ts';
