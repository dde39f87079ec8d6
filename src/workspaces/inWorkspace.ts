// The way CLI commands of every feature reach one workspace: the database, and a clear "no
// workspace" before any work when the id is wrong.
import { type CliContext, withDatabase } from '../cli/context.ts';
import { requireWorkspace } from './service.ts';

/** A CLI command's work in one workspace: on the database, once the workspace is known to exist. */
export function inWorkspace<T>(workspaceId: string, action: (context: CliContext) => Promise<T>): Promise<T> {
  return withDatabase(async (context) => {
    await requireWorkspace(context, workspaceId);
    return action(context);
  });
}
