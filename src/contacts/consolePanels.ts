// The contact page is assembled from panels: what the features above contacts know about a contact
// (its events, score, segments, subscriptions, campaigns, messages), which contacts may not import.
// Each such feature exports a ContactPanel from its console.ts; the composition hands them in.
//
//   export const scorePanel: ContactPanel = {
//     id: 'score', title: 'Lead score', order: 20,
//     render: async ({ app, workspaceId, contact }) => html`…`,     // null: the panel is left out
//     install: (router, app) => router.post('/contacts/:contactId/…', consoleForm(), …),   // its forms
//   };
import type { Request, Response, Router } from 'express';
import type { SafeHtml } from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import type { ContactRow } from './queries.ts';

export type ContactView = {
  app: AppContext;
  req: Request;
  res: Response;
  workspaceId: string;
  contact: ContactRow;
  /** The contact page's path: a panel's links (paging, filters) and form redirects start here. */
  path: string;
};

export type ContactPanel = {
  /** The panel's anchor (#score) and the start of its query parameters. */
  id: string;
  title: string;
  /** Smaller first; the page's own profile and attributes come before every panel. */
  order: number;
  /** Wide panels take the page's full width (a timeline); the others share a grid. */
  wide?: boolean;
  render: (view: ContactView) => Promise<SafeHtml | null>;
  /** Routes of the panel's forms, on the workspace's console router. */
  install?: (router: Router, app: AppContext) => void;
};
