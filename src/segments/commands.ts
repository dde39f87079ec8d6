// `switchboard segments refresh [--workspace W]`: the scheduled `segments.refresh` job's work, now
// and without its budget, and prints who entered and left. Only ready segments with time windows
// are refreshed: time passing changes no other membership (ingest keeps those current), and a
// segment still computing is evaluated whole by its compute job.
import type { Command } from 'commander';
import { print, run, table, withDatabase } from '../cli/context.ts';
import type { FeatureEffects } from '../core/context.ts';
import { NotFoundError } from '../core/errors.ts';
import { findWorkspaceById } from '../workspaces/index.ts';
import { refreshSegments } from './jobs.ts';

const NOTHING_TO_REFRESH =
  'no ready segments with time windows (`within`) to refresh: other segments are kept current ' +
  'at ingest, and a segment still computing is evaluated by its compute job';

export function installSegmentCommands(program: Command, effects: FeatureEffects) {
  program
    .command('segments')
    .description('segments')
    .command('refresh')
    .description(
      're-evaluate now, without the scheduled budget, the ready segments whose rules use `within` ' +
        '(time windows): the contacts with an event that crossed a window edge since the last ' +
        'refresh (everyone, for a segment never refreshed). Other segments need no refresh.',
    )
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
          return refreshSegments({ db, effects }, options.workspace ?? null, budget);
        });
        print(!!options.json, { segments: results }, () =>
          results.length === 0
            ? NOTHING_TO_REFRESH
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
