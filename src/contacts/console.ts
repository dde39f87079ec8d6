// The contacts feature's console pages (src/console/ kit): the list at /app/{ws}/contacts and a
// contact's page. What features above contacts know about a contact (score, segments,
// subscriptions, campaigns, messages) comes in as panels, handed over by the composition.

import type { ConsolePages } from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { contactListPage, type SegmentChoices } from './consoleList.ts';

export type ContactConsoleOptions = {
  /** The segments the list's filter offers (none until the segments feature hands them in). */
  segments?: SegmentChoices;
};

export function contactConsole(app: AppContext, options: ContactConsoleOptions = {}): ConsolePages {
  const segments: SegmentChoices = options.segments ?? (async () => []);
  return {
    sections: [{ path: 'contacts', label: 'Contacts', key: 'c', order: 10 }],
    install(router) {
      router.get('/contacts', (req, res) => contactListPage(app, segments, req, res));
    },
  };
}
