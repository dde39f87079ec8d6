// A campaign's address in the console, which its pages (and the forms on them) build on.
import type { Response } from 'express';
import { workspacePath } from '../console/index.ts';

/** `/app/{workspaceId}/campaigns/{campaignId}` for the page's workspace. */
export function campaignPath(res: Response, campaignId: string): string {
  return `${workspacePath(res)}/campaigns/${encodeURIComponent(campaignId)}`;
}
