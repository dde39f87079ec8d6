// `switchboard segments refresh [--workspace W]`: re-evaluates segments with time windows now,
// as the scheduled `segments.refresh` job does, and prints who entered and left.
import type { Command } from 'commander';
import { print, run, table, withDatabase } from '../cli/context.ts';
import { NotFoundError } from '../http/errors.ts';
import { findWorkspaceById } from '../workspaces/index.ts';
import { refreshSegments } from './jobs.ts';

export function installSegmentCommands(program: Command) {
  program
    .command('segments')
    .description('segments')
    .command('refresh')
    .description('re-evaluate segments whose rules use `within` (time windows) now')
    .option('--workspace <id>', 'only this workspace')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { workspace?: string; json?: boolean }) => {
        const results = await withDatabase(async ({ db, config }) => {
          if (options.workspace && !(await findWorkspaceById(db, options.workspace))) {
            throw new NotFoundError('Workspace', `No workspace ${options.workspace}.`);
          }
          // An operator asked for it now: the whole pass, still page by page, with no budget.
          const budget = { rows: Infinity, ms: Infinity, pageSize: config.SEGMENT_COMPUTE_PAGE_SIZE };
          return refreshSegments(db, options.workspace ?? null, budget);
        });
        print(!!options.json, { segments: results }, () =>
          results.length === 0
            ? 'no segments with time windows'
            : table(
                results.map((result) => ({
                  ...result,
                  entered: result.entered.length,
                  exited: result.exited.length,
                })),
                ['workspaceId', 'segmentId', 'entered', 'exited'],
              ),
        );
      }),
    );
}
