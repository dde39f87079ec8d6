// `switchboard import contacts FILE` and `switchboard import events FILE`.
import type { Command } from 'commander';
import { z } from 'zod';
import { registerStepQueue } from '../campaigns/index.ts';
import { type CliContext, parseOrThrow, print, run, withDatabase } from '../cli/context.ts';
import { jsonLimitsOf } from '../http/jsonLimits.ts';
import { createBoss } from '../jobs/boss.ts';
import { importFile } from './importFile.ts';
import { progressBar } from './progress.ts';
import { fileSize, formatOf } from './read.ts';
import type { ImportKind } from './rows.ts';

const ImportCommandOptions = z.object({
  workspace: z.string().min(1),
  format: z.enum(['csv', 'ndjson'], { message: 'must be csv or ndjson' }).optional(),
  dryRun: z.boolean().optional(),
  skipInvalid: z.boolean().optional(),
  rejects: z.string().min(1).optional(),
  triggerCampaigns: z.boolean().optional(),
  json: z.boolean().optional(),
});

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

type Summary = Awaited<ReturnType<typeof importFile>> & Record<string, unknown>;

function skippedText(summary: Summary): string {
  const parts = [
    summary.alreadyImported ? `${plural(Number(summary.alreadyImported), 'row')} imported before` : '',
    summary.duplicates ? `${plural(Number(summary.duplicates), 'duplicate')} in the file` : '',
    summary.invalid
      ? `${plural(summary.invalid, 'invalid row')}${summary.rejectsFile ? ` → ${summary.rejectsFile}` : ''}`
      : '',
  ].filter(Boolean);
  return parts.length ? ` (skipped: ${parts.join(', ')})` : '';
}

function summaryLine(summary: Summary): string {
  const verb = summary.dryRun ? 'dry run, nothing changed: would import' : 'imported';
  const effects = `${plural(Number(summary.entered ?? 0), 'segment entry', 'segment entries')}, ${plural(Number(summary.exited ?? 0), 'exit')}, ${plural(Number(summary.enrollments ?? 0), 'enrollment')}`;
  const timing = `${summary.seconds} s, ${summary.rowsPerSecond.toLocaleString('en')} rows/s`;
  if (summary.kind === 'contacts') {
    return `${verb} ${plural(summary.rows, 'row')}: ${plural(Number(summary.created), 'contact')} created, ${Number(summary.updated).toLocaleString('en')} updated, ${Number(summary.unchanged).toLocaleString('en')} unchanged${skippedText(summary)}; ${effects}; ${timing}`;
  }
  return `${verb} ${plural(Number(summary.imported), 'event')} of ${plural(summary.rows, 'row')}${skippedText(summary)}; ${plural(Number(summary.contactsCreated), 'contact')} created, ${plural(Number(summary.scoreChanges), 'score change')}, ${effects}; ${timing}`;
}

/**
 * Enrollments queue their first step through the job queue: with --trigger-campaigns the import
 * starts one of its own (pg-boss, as the web process does) and hands it to campaigns.
 */
async function withStepQueue<T>(context: CliContext, wanted: boolean, work: () => Promise<T>): Promise<T> {
  if (!wanted) return work();
  const boss = createBoss(context.databaseUrl, 'cli');
  await boss.start();
  const release = registerStepQueue(boss);
  try {
    return await work();
  } finally {
    release();
    await boss.stop({ graceful: false });
  }
}

function action(kind: ImportKind) {
  return run(async (file: string, raw: Record<string, unknown>) => {
    const options = parseOrThrow(ImportCommandOptions, raw);
    const format = formatOf(file, options.format);
    const progress = progressBar(await fileSize(file));
    const summary = (await withDatabase((context) =>
      withStepQueue(context, options.triggerCampaigns ?? false, () =>
        importFile(context, {
          kind,
          file,
          format,
          workspaceId: options.workspace,
          dryRun: options.dryRun ?? false,
          skipInvalid: options.skipInvalid ?? false,
          rejects: options.rejects ?? `${file}.rejects`,
          triggerCampaigns: options.triggerCampaigns ?? false,
          progress,
          checkers: context.config.IMPORT_CHECKERS,
          limits: jsonLimitsOf(context.config),
        }),
      ),
    )) as Summary;
    print(!!options.json, summary, () => summaryLine(summary));
  });
}

function importCommand(parent: Command, kind: ImportKind, description: string) {
  parent
    .command(`${kind} <file>`)
    .description(description)
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--format <format>', 'csv or ndjson (default: from the extension, .csv or .ndjson/.jsonl)')
    .option('--dry-run', 'validate and merge, report what would change, then roll everything back')
    .option('--skip-invalid', 'import the valid rows and write the invalid ones to the rejects file')
    .option('--rejects <path>', 'where --skip-invalid writes invalid rows (default: FILE.rejects)')
    .option(
      '--trigger-campaigns',
      'let campaign triggers enroll contacts (off: historical data messages nobody)',
    )
    .option('--json', 'machine-readable summary')
    .action(action(kind));
}

export function installImportCommands(program: Command) {
  const imports = program
    .command('import')
    .description('bulk import of contacts and events from a file (one transaction: all or nothing)');
  importCommand(
    imports,
    'contacts',
    'upsert contacts by email from a CSV file with a header row (email, firstName, lastName, phone, ' +
      'anonymousId; other columns become attributes) or NDJSON ({email, firstName, …, attributes})',
  );
  importCommand(
    imports,
    'events',
    'import events from NDJSON, one event a line in the shape of POST …/events (an optional `id` ' +
      'makes a re-run skip it; `timestamp` may be in the past); contacts are found or created',
  );
}
