// The contacts feature's console pages (src/console/ kit): the list at /app/{ws}/contacts and a
// contact's page. What features above contacts know about a contact (events, score, segments,
// subscriptions, campaigns, messages) comes in as panels (consolePanels.ts), and the segments the
// list's filter offers as a function, both handed over by the composition.
import type { ConsolePages } from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { installContactPage } from './consoleContact.ts';
import { contactListPage, type SegmentChoices } from './consoleList.ts';
import type { ContactPanel } from './consolePanels.ts';

export type ContactConsoleOptions = {
  /** The segments the list's filter offers. */
  segments?: SegmentChoices;
  panels?: ContactPanel[];
};

export function contactConsole(app: AppContext, options: ContactConsoleOptions = {}): ConsolePages {
  const segments: SegmentChoices = options.segments ?? (async () => []);
  const panels = [...(options.panels ?? [])].sort((a, b) => a.order - b.order);
  return {
    sections: [{ path: 'contacts', label: 'Contacts', key: 'c', order: 10 }],
    install(router) {
      router.get('/contacts', (req, res) => contactListPage(app, segments, req, res));
      installContactPage(router, app, panels);
    },
  };
}
