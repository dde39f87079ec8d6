// The console's composition: /app and everything under it. Each feature's pages (its console.ts,
// taken through its feature.ts) are mounted on one router at /app/{workspaceId}, behind the
// membership middleware: a session is required (else 303 to sign-in, coming back after), the user
// must be a member of that workspace (else the 404 page, as for an unknown id), and the shell's
// state (user, workspace, role, the switcher's workspaces, CSRF token, flash, theme) is put on
// res.locals.console. An API key never reaches a page: only the session is read.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { findUserById } from '../accounts/index.ts';
import { campaignsPanel } from '../campaigns/feature.ts';
import {
  type ConsolePages,
  type ConsoleState,
  consoleErrors,
  consoleForm,
  consoleHeaders,
  formText,
  html,
  sendErrorPage,
  sendPage,
  serveAssets,
  type Theme,
} from '../console/index.ts';
import { contactConsole } from '../contacts/feature.ts';
import { actingAs } from '../core/actor.ts';
import type { AppContext } from '../core/context.ts';
import { timelinePanel } from '../events/feature.ts';
import { csrfToken, safeNext } from '../http/html.ts';
import { actingFor } from '../http/principal.ts';
import { messagesPanel, subscriptionsPanel } from '../messages/feature.ts';
import { scorePanel } from '../scoring/feature.ts';
import { segmentChoices, segmentsPanel } from '../segments/feature.ts';
import { listWorkspacesOfUser } from '../workspaces/index.ts';
import { WHOLE_FEATURES } from './wholeFeatures.ts';

const LAST_WORKSPACE_COOKIE = 'sb.ws';
const THEME_COOKIE = 'sb.theme';
const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * Every feature's console sections (the navigation orders them by their `order`). The contacts
 * section comes apart from the list: its contact page is assembled from the panels of the features
 * above contacts, which contacts may not import, so they are handed in here.
 */
function consoleFeatures(context: AppContext): ConsolePages[] {
  const contacts = contactConsole(context, {
    segments: segmentChoices,
    panels: [scorePanel, segmentsPanel, subscriptionsPanel, campaignsPanel, messagesPanel, timelinePanel],
  });
  return [
    contacts,
    ...WHOLE_FEATURES.flatMap((feature) => (feature.console ? [feature.console(context)] : [])),
  ];
}

function cookie(req: Request, name: string): string | undefined {
  const pattern = new RegExp(`(?:^|;\\s*)${name.replace('.', '\\.')}=([^;]*)`);
  const value = req.get('cookie')?.match(pattern)?.[1];
  return value === undefined ? undefined : decodeURIComponent(value);
}

function themeOf(req: Request): Theme {
  const value = cookie(req, THEME_COOKIE);
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** The shell's state for a signed-in person, or a 303 to the sign-in page (coming back here). */
function signedIn(context: AppContext, pages: ConsolePages[]) {
  const sections = pages.flatMap((p) => p.sections).sort((a, b) => a.order - b.order);
  return async (req: Request, res: Response, next: NextFunction) => {
    const userId = req.session?.userId;
    const user = userId ? await findUserById(context.db, userId) : null;
    if (!user) return res.redirect(303, `/auth/signin?next=${encodeURIComponent(req.originalUrl)}`);
    const memberOf = await listWorkspacesOfUser(context.db, user.id);
    const state: ConsoleState = {
      user: { id: user.id, name: user.name, email: user.email },
      workspace: null,
      role: null,
      workspaces: memberOf.map((w) => ({ id: w.id, name: w.name, role: w.role })),
      sections,
      csrf: csrfToken(req, res),
      theme: themeOf(req),
    };
    res.locals.console = state;
    // The pages' changes are the signed-in person's, from this client, in the audit log.
    actingAs(actingFor({ kind: 'session', userId: user.id, role: null }, req), next);
  };
}

/** /app/{workspaceId}/…: the user's membership of that workspace, or the 404 page. */
function member(req: Request, res: Response, next: NextFunction) {
  const state = res.locals.console as ConsoleState;
  const found = state.workspaces.find((w) => w.id === req.params.workspaceId);
  if (!found)
    return sendErrorPage(
      res,
      404,
      'Not found',
      'There is no such workspace, or you are not one of its members.',
    );
  state.workspace = { id: found.id, name: found.name };
  state.role = found.role;
  if (cookie(req, LAST_WORKSPACE_COOKIE) !== found.id) {
    res.cookie(LAST_WORKSPACE_COOKIE, found.id, {
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure,
      path: '/app',
      maxAge: YEAR_MS,
    });
  }
  next();
}

/** /app: the workspace used last (if still a member), else the first; none: the page to make one. */
function home(req: Request, res: Response) {
  const state = res.locals.console as ConsoleState;
  const last = cookie(req, LAST_WORKSPACE_COOKIE);
  const target = state.workspaces.find((w) => w.id === last) ?? state.workspaces[0];
  res.redirect(303, target ? `/app/${encodeURIComponent(target.id)}` : '/app/new');
}

function setTheme(req: Request, res: Response) {
  const theme = formText(req, 'theme');
  if (theme === 'light' || theme === 'dark') {
    res.cookie(THEME_COOKIE, theme, { sameSite: 'lax', secure: req.secure, path: '/', maxAge: YEAR_MS });
  } else res.clearCookie(THEME_COOKIE, { path: '/' });
  const next = safeNext(formText(req, 'next'));
  res.redirect(303, next.startsWith('/app') ? next : '/app');
}

/** /app/{workspaceId}: the first section, or a page listing none while no feature has pages. */
function workspaceHome(res: Response) {
  const state = res.locals.console as ConsoleState;
  const first = state.sections[0];
  if (first) return res.redirect(303, `/app/${encodeURIComponent(state.workspace!.id)}/${first.path}`);
  sendPage(res, { title: 'Workspace', body: html`<p>This workspace has no pages yet.</p>` });
}

export function installConsole(app: Express, context: AppContext): void {
  const pages = consoleFeatures(context);
  const console = express.Router();
  console.use(consoleHeaders());
  console.use('/assets', serveAssets());
  console.use(signedIn(context, pages));
  console.get('/', home);
  console.post('/theme', consoleForm(), setTheme);
  for (const feature of WHOLE_FEATURES) feature.consoleRoot?.(console, context);

  const workspace = express.Router({ mergeParams: true });
  workspace.use(member);
  workspace.get('/', (_req, res) => workspaceHome(res));
  for (const feature of pages) feature.install(workspace);
  workspace.use((_req: Request, res: Response) =>
    sendErrorPage(res, 404, 'Not found', 'There is no such page in this workspace.'),
  );
  console.use('/:workspaceId', workspace);
  console.use((_req: Request, res: Response) =>
    sendErrorPage(res, 404, 'Not found', 'There is no such page.'),
  );
  console.use(consoleErrors(context.log));
  app.use('/app', console);
}
