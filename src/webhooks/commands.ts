// `switchboard deliveries list` and `switchboard webhooks test`: thin over the webhook services.
// Pings are sent by this process (see src/webhooks/replay.ts); replay is in ./replayCommand.ts.
import type { Command } from 'commander';
import { z } from 'zod';
import { Instant, parseOrThrow, print, run, table } from '../cli/context.ts';
import { VERSION } from '../version.ts';
import { inWorkspace } from '../workspaces/index.ts';
import { ping } from './replay.ts';
import { installReplayCommand } from './replayCommand.ts';
import { listDeliveryPage } from './service.ts';

const ListOptions = z.object({
  workspace: z.string().min(1),
  endpoint: z.string().min(1).optional(),
  failed: z.boolean().optional(),
  since: Instant,
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  json: z.boolean().optional(),
});

async function listAction(raw: Record<string, unknown>) {
  const options = parseOrThrow(ListOptions, raw);
  const page = await inWorkspace(options.workspace, async (context) => {
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

async function testAction(options: { workspace: string; endpoint: string; json?: boolean }) {
  const outcome = await inWorkspace(options.workspace, async (context) => {
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
    .option('--failed', 'only failed attempts (their message may still be waiting for a scheduled retry)')
    .option('--since <iso>', 'only deliveries at or after this time')
    .option('--limit <n>', 'how many (default 50)')
    .option('--json', 'machine-readable output')
    .action(run(listAction));
  installReplayCommand(deliveries);
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
