// `switchboard deliveries list|replay` and `switchboard webhooks test`: thin over the webhook
// services. Replays and pings are sent by this process (see src/webhooks/replay.ts).
import type { Command } from 'commander';
import { z } from 'zod';
import { NotFoundError } from '../http/errors.ts';
import { VERSION } from '../runtime.ts';
import type { Summary } from '../webhooks/replay.ts';
import { ping, planReplay, sendNow } from '../webhooks/replay.ts';
import { listDeliveryPage } from '../webhooks/service.ts';
import { findWorkspaceById } from '../workspaces/queries.ts';
import { parseOrThrow } from './accounts.ts';
import { type CliContext, print, run, table, withDatabase } from './context.ts';

const Instant = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z' })
  .transform((value) => new Date(value).toISOString())
  .optional();

const ListOptions = z.object({
  workspace: z.string().min(1),
  endpoint: z.string().min(1).optional(),
  failed: z.boolean().optional(),
  since: Instant,
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  json: z.boolean().optional(),
});

const ReplayOptions = z.object({
  workspace: z.string().min(1),
  endpoint: z.string().min(1).optional(),
  since: Instant,
  until: Instant,
  failedOnly: z.boolean().optional(),
  dryRun: z.boolean().optional(),
  json: z.boolean().optional(),
});

async function requireWorkspace({ db }: CliContext, workspaceId: string) {
  if (!(await findWorkspaceById(db, workspaceId)))
    throw new NotFoundError('Workspace', `No workspace ${workspaceId}.`);
}

/** A bar on a terminal; nothing when output is piped, so logs stay clean. */
function progressBar(): (done: number, total: number) => void {
  if (!process.stderr.isTTY) return () => {};
  return (done, total) => {
    const width = 30;
    const filled = Math.round((done / Math.max(total, 1)) * width);
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
    if (done >= total) process.stderr.write('\n');
  };
}

function summaryLine(summary: Summary, inactive: number): string {
  const skipped = inactive > 0 ? `; ${inactive} left out (endpoint disabled)` : '';
  return `replayed ${summary.total} messages: ${summary.succeeded} succeeded, ${summary.failed} failed${skipped}`;
}

async function listAction(raw: Record<string, unknown>) {
  const options = parseOrThrow(ListOptions, raw);
  const page = await withDatabase(async (context) => {
    await requireWorkspace(context, options.workspace);
    const filter = {
      endpointId: options.endpoint,
      success: options.failed ? false : undefined,
      since: options.since,
    };
    return listDeliveryPage(context.db, options.workspace, filter, { page: 1, limit: options.limit });
  });
  print(!!options.json, page, () =>
    table(
      page.data.map((delivery) => ({ ...delivery, responseStatus: delivery.responseStatus ?? '-' })),
      [
        'id',
        'createdAt',
        'direction',
        'endpointId',
        'event',
        'attempt',
        'trigger',
        'responseStatus',
        'success',
        'error',
      ],
    ),
  );
}

async function replayAction(raw: Record<string, unknown>) {
  const options = parseOrThrow(ReplayOptions, raw);
  await withDatabase(async (context) => {
    await requireWorkspace(context, options.workspace);
    const plan = await planReplay(context.db, {
      workspaceId: options.workspace,
      endpointId: options.endpoint,
      since: options.since,
      until: options.until,
      failedOnly: options.failedOnly,
    });
    if (options.dryRun) {
      const result = {
        wouldReplay: plan.sendable.length,
        inactive: plan.inactive.length,
        messages: plan.sendable,
      };
      print(!!options.json, result, () =>
        [
          table(plan.sendable, ['id', 'created_at', 'endpoint_id', 'event', 'status']),
          `would replay ${plan.sendable.length} messages (dry run; nothing sent)`,
        ].join('\n'),
      );
      return;
    }
    const ids = plan.sendable.map((message) => message.id);
    const { summary } = await sendNow(context.db, context.config, VERSION, ids, progressBar());
    print(!!options.json, { ...summary, inactive: plan.inactive.length }, () =>
      summaryLine(summary, plan.inactive.length),
    );
  });
}

async function testAction(options: { workspace: string; endpoint: string; json?: boolean }) {
  const outcome = await withDatabase(async (context) => {
    await requireWorkspace(context, options.workspace);
    return ping(context.db, context.config, VERSION, options.workspace, options.endpoint);
  });
  const { result } = outcome;
  const summary = {
    deliveryId: outcome.attempt.id,
    messageId: outcome.attempt.message_id,
    success: result.success,
    responseStatus: result.responseStatus,
    durationMs: result.durationMs,
    error: result.error,
  };
  print(!!options.json, summary, () =>
    result.success
      ? `ping delivered: HTTP ${result.responseStatus} in ${result.durationMs} ms (delivery ${summary.deliveryId})`
      : `ping failed: ${result.error} (delivery ${summary.deliveryId})`,
  );
  if (!result.success) process.exitCode = 1;
}

export function installWebhookCommands(program: Command) {
  const deliveries = program.command('deliveries').description('webhook delivery records');
  deliveries
    .command('list')
    .description('list delivery records, newest first')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--endpoint <id>', 'only this endpoint')
    .option('--failed', 'only failed deliveries')
    .option('--since <iso>', 'only deliveries at or after this time')
    .option('--limit <n>', 'how many (default 50)')
    .option('--json', 'machine-readable output')
    .action(run(listAction));
  deliveries
    .command('replay')
    .description('send matching outbound messages again, as manual attempts')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--endpoint <id>', 'only this endpoint')
    .option('--since <iso>', 'messages created at or after this time')
    .option('--until <iso>', 'messages created before this time')
    .option('--failed-only', 'only messages that failed or were skipped')
    .option('--dry-run', 'list what would be sent, send nothing')
    .option('--json', 'machine-readable output')
    .action(run(replayAction));
  program
    .command('webhooks')
    .description('webhook endpoints')
    .command('test')
    .description('send a signed ping to an OUTBOUND endpoint and show the answer')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--endpoint <id>', 'endpoint id')
    .option('--json', 'machine-readable output')
    .action(run(testAction));
}
