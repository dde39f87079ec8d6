// `switchboard deliveries replay`: sends matching outbound messages again, from this process and
// under its configuration (ALLOW_PRIVATE_TARGETS, WEBHOOK_TIMEOUT_MS, …), so the report
// is immediate and needs no worker running. Sends go in chunks of WEBHOOK_CONCURRENCY; SIGINT or
// SIGTERM lets the chunk in flight finish and be recorded, then prints what was and was not sent.
import { constants } from 'node:os';
import type { Command } from 'commander';
import { z } from 'zod';
import { type CliContext, Instant, parseOrThrow, print, run, table } from '../cli/context.ts';
import { confirm, interactive } from '../cli/prompt.ts';
import { VERSION } from '../version.ts';
import { inWorkspace } from '../workspaces/index.ts';
import type { Outcome } from './attempts.ts';
import type { ReplayRow } from './messageQueries.ts';
import { planReplay, type ReplayPlan, sendNow } from './replay.ts';

const ReplayOptions = z.object({
  workspace: z.string().min(1),
  endpoint: z.string().min(1).optional(),
  since: Instant,
  until: Instant,
  failedOnly: z.boolean().optional(),
  all: z.boolean().optional(),
  yes: z.boolean().optional(),
  dryRun: z.boolean().optional(),
  json: z.boolean().optional(),
});
type ReplayOptions = z.output<typeof ReplayOptions>;

const COLUMNS = ['id', 'createdAt', 'endpointId', 'event', 'status'];

/** A message as `deliveries list` names its fields. */
function messageView(row: ReplayRow) {
  return {
    id: row.id,
    createdAt: row.created_at,
    endpointId: row.endpoint_id,
    event: row.event,
    status: row.status,
  };
}

type Failure = {
  messageId: string;
  endpointId: string;
  url: string | null;
  responseStatus: number | null;
  error: string | null;
};

function failureView({ attempt, result }: Outcome): Failure {
  return {
    messageId: attempt.message_id,
    endpointId: attempt.endpoint_id,
    url: attempt.url,
    responseStatus: result.responseStatus,
    error: result.error,
  };
}

function failureLine(failure: Failure): string {
  const reason = failure.error ?? `HTTP ${failure.responseStatus}`;
  return `  ${failure.messageId} to ${failure.url ?? failure.endpointId}: ${reason}`;
}

/** What the plan left out, in the words `deliveries list --failed` would make a reader expect. */
function leftOut(inactive: number, retrying: number): string {
  const parts = [
    inactive > 0 ? `${inactive} left out (endpoint disabled)` : '',
    retrying > 0
      ? `${retrying} left out (a failed attempt, but waiting for its scheduled retry: not failed yet)`
      : '',
  ];
  return parts
    .filter(Boolean)
    .map((part) => `; ${part}`)
    .join('');
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

/** The first SIGINT/SIGTERM asks the replay to stop after the chunk in flight; repeats are ignored. */
function stopOnSignal() {
  const state: { signal: NodeJS.Signals | null; release: () => void } = { signal: null, release: () => {} };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!state.signal) process.stderr.write(`\n${signal}: finishing the sends in flight, then stopping\n`);
    state.signal ??= signal;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  state.release = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return state;
}

async function sendInChunks(context: CliContext, workspaceId: string, ids: string[]) {
  const stop = stopOnSignal();
  const progress = progressBar();
  const chunk = context.config.WEBHOOK_CONCURRENCY;
  const outcomes: Outcome[] = [];
  try {
    for (let start = 0; start < ids.length && !stop.signal; start += chunk) {
      const sent = await sendNow(
        context.db,
        context.config,
        VERSION,
        workspaceId,
        ids.slice(start, start + chunk),
      );
      outcomes.push(...sent.outcomes);
      progress(outcomes.length, ids.length);
    }
  } finally {
    stop.release();
  }
  return { outcomes, signal: stop.signal };
}

function hasFilter(options: ReplayOptions): boolean {
  return Boolean(options.endpoint || options.since || options.until || options.failedOnly);
}

/** Without a filter a replay sends the whole workspace's history: only when asked for. */
async function confirmEverything(options: ReplayOptions, count: number) {
  if (hasFilter(options) || options.all || options.yes || count === 0) return;
  const question = `No filter given: send all ${count} messages of workspace ${options.workspace} again?`;
  if (interactive() && (await confirm(question))) return;
  throw new Error(
    interactive()
      ? 'replay cancelled; nothing was sent'
      : `no filter given: this would send all ${count} messages of the workspace again. ` +
          'Pass --all (or --yes) to do that, or narrow it with --endpoint, --since, --until or --failed-only.',
  );
}

function dryRun(options: ReplayOptions, plan: ReplayPlan) {
  const messages = plan.sendable.map(messageView);
  const inactive = plan.inactive.length;
  const retrying = plan.retrying.length;
  print(!!options.json, { wouldReplay: messages.length, inactive, retrying, messages }, () =>
    [
      table(messages, COLUMNS),
      `would replay ${messages.length} messages (dry run; nothing sent)${leftOut(inactive, retrying)}`,
    ].join('\n'),
  );
}

async function replayAction(raw: Record<string, unknown>) {
  const options = parseOrThrow(ReplayOptions, raw);
  await inWorkspace(options.workspace, async (context) => {
    const plan = await planReplay(context.db, {
      workspaceId: options.workspace,
      endpointId: options.endpoint,
      since: options.since,
      until: options.until,
      failedOnly: options.failedOnly,
    });
    if (options.dryRun) return dryRun(options, plan);
    await confirmEverything(options, plan.sendable.length);
    const ids = plan.sendable.map((message) => message.id);
    const { outcomes, signal } = await sendInChunks(context, options.workspace, ids);
    report(options, {
      planned: ids.length,
      inactive: plan.inactive.length,
      retrying: plan.retrying.length,
      outcomes,
      signal,
    });
  });
}

function report(
  options: ReplayOptions,
  result: {
    planned: number;
    inactive: number;
    retrying: number;
    outcomes: Outcome[];
    signal: NodeJS.Signals | null;
  },
) {
  const failures = result.outcomes.filter((outcome) => !outcome.result.success).map(failureView);
  const total = result.outcomes.length;
  const summary = {
    total,
    succeeded: total - failures.length,
    failed: failures.length,
    inactive: result.inactive,
    retrying: result.retrying,
    notSent: result.planned - total,
    interrupted: result.signal,
    failures,
  };
  print(!!options.json, summary, () => {
    const counts = `${summary.succeeded} succeeded, ${summary.failed} failed${leftOut(result.inactive, result.retrying)}`;
    const head = result.signal
      ? `interrupted by ${result.signal}: replayed ${total} of ${result.planned} messages: ${counts}; ${summary.notSent} not sent`
      : `replayed ${total} messages: ${counts}`;
    return [head, ...failures.map(failureLine)].join('\n');
  });
  if (failures.length > 0 && !options.json)
    process.stderr.write(
      'note: replays are sent by this process under its own configuration (ALLOW_PRIVATE_TARGETS, ' +
        'WEBHOOK_ALLOW_HTTP, WEBHOOK_TIMEOUT_MS): run it with the same environment as the worker.\n',
    );
  if (result.signal) process.exitCode = 128 + constants.signals[result.signal];
  else if (failures.length > 0) process.exitCode = 1;
}

export function installReplayCommand(deliveries: Command) {
  deliveries
    .command('replay')
    .description(
      'send matching outbound messages again now, as manual attempts. They are sent by this process, ' +
        'under its configuration: give it the worker’s environment (ALLOW_PRIVATE_TARGETS, ' +
        'WEBHOOK_ALLOW_HTTP, WEBHOOK_TIMEOUT_MS). Exit code 1 if any send failed. Without a filter, ' +
        'asks first on a terminal and needs --all or --yes otherwise.',
    )
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--endpoint <id>', 'only this endpoint')
    .option('--since <iso>', 'messages created at or after this time')
    .option('--until <iso>', 'messages created before this time')
    .option(
      '--failed-only',
      'only messages whose delivery failed for good (retries spent) or was skipped; one whose failed ' +
        'attempt still waits for a scheduled retry is left out and counted',
    )
    .option('--all', 'replay every message of the workspace (needed without a filter unless confirmed)')
    .option('--yes', 'do not ask for confirmation')
    .option('--dry-run', 'list what would be sent, send nothing')
    .option('--json', 'machine-readable output')
    .action(run(replayAction));
}
