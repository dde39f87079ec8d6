// What this feature brings to the service, as the composition layer (src/app/wholeFeatures.ts)
// reads it; nothing else imports this module.
import type { Feature } from '../feature/definition.ts';
import { background } from './background.ts';
import { campaignConsole } from './consolePages.ts';
import { installProgressPages } from './consoleProgress.ts';
import { progressRoutes } from './progressRoutes.ts';
import { reportConsole } from './reportConsole.ts';
import { reportRoutes } from './reportRoutes.ts';
import { campaignRoutes } from './routes.ts';

export const feature: Feature = {
  ...background,
  routes: [...campaignRoutes, ...reportRoutes, ...progressRoutes],
  // The campaigns section, a broadcast's progress, and the reports (a campaign's, and the
  // workspace's own section).
  console: (context) => {
    const parts = [campaignConsole(context), reportConsole(context)];
    return {
      sections: parts.flatMap((part) => part.sections),
      install: (router) => {
        installProgressPages(context, router);
        for (const part of parts) part.install(router);
      },
    };
  },
};

export { campaignsPanel } from './console.ts';
