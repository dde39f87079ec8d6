// What the shell needs to know about the request it renders, put on `res.locals.console` by the
// composition's membership middleware (src/app/console.ts) before any page handler runs:
//
//   const { workspace, role, user } = consoleState(res);   // inside a page handler
//   if (!isAdmin(res)) …                                   // hide a button a MEMBER may not use
//
// The kit knows no feature: users and workspaces are plain shapes here.
import type { Response } from 'express';
import { ForbiddenError } from '../core/errors.ts';

export type ConsoleRole = 'ADMIN' | 'MEMBER';

/** One entry of the navigation, given by the feature that owns the section. */
export type ConsoleSection = {
  /** The path after /app/{workspaceId}: `contacts` → /app/{ws}/contacts. */
  path: string;
  label: string;
  /** A second key after `g` that opens the section (`g c` contacts); unique across sections. */
  key?: string;
  /** Smaller first; sections with the same order keep the order they were given in. */
  order: number;
  /** Shown to ADMINs only: a MEMBER would find nothing there they may read. */
  adminOnly?: boolean;
  /**
   * Sections of one group (`Settings`: API keys, members, channels…, given by several features)
   * share one entry of the navigation, named by the group and leading to its first section; their
   * pages show the group's sections as tabs (groupTabs in components.ts).
   */
  group?: string;
};

export type Flash = { kind: 'success' | 'error'; message: string };

export type ConsoleState = {
  user: { id: string; name: string; email: string };
  /** The workspace of the page; null on pages outside one (/app/new, /app/account). */
  workspace: { id: string; name: string } | null;
  role: ConsoleRole | null;
  workspaces: readonly { id: string; name: string; role: ConsoleRole }[];
  sections: readonly ConsoleSection[];
  /** The double-submit CSRF token every form of the page carries. */
  csrf: string;
  theme: Theme;
};

export type Theme = 'system' | 'light' | 'dark';

export function consoleState(res: Response): ConsoleState {
  const state = res.locals.console as ConsoleState | undefined;
  if (!state) throw new Error('console page rendered outside the console middleware');
  return state;
}

/** The workspace of a page under /app/{workspaceId}/… (the membership middleware guarantees one). */
export function pageWorkspace(res: Response): { id: string; name: string } {
  const { workspace } = consoleState(res);
  if (!workspace) throw new Error('workspace page rendered outside /app/{workspaceId}');
  return workspace;
}

export function isAdmin(res: Response): boolean {
  return consoleState(res).role === 'ADMIN';
}

/** Refuses (403 page) what a MEMBER may not do, even when the request was crafted by hand. */
export function requireAdmin(res: Response): void {
  if (!isAdmin(res))
    throw new ForbiddenError('Only an ADMIN of this workspace may do this.', 'admin-required');
}

/** The base path of the workspace's pages: `${workspacePath(res)}/contacts`. */
export function workspacePath(res: Response): string {
  return `/app/${encodeURIComponent(pageWorkspace(res).id)}`;
}

/**
 * What a feature hands the composition for the console: its navigation entries and a function
 * that adds its pages to the router of one workspace, mounted at /app/{workspaceId} behind the
 * membership middleware (paths are relative: `router.get('/contacts', …)`).
 */
export type ConsolePages = {
  sections: ConsoleSection[];
  install: (router: import('express').Router) => void;
};
