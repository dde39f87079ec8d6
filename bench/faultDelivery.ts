// The delivery scenarios of bench/faults.ts: the worker SIGKILLed during a webhook fan-out and
// during an email broadcast (then started again, as a platform would), and a receiver that never
// answers beside two healthy ones. Each returns a row of the table.
import pg from 'pg';
import type { SmtpSink, WebhookReceiver } from './faultReceivers.ts';
import { type Admin, FAULT_SETTINGS, type Service } from './faultService.ts';

export type Row = {
  scenario: string;
  load: string;
  acknowledged: string;
  lost: number;
  duplicated: number;
  halfApplied: number;
  recover: string;
  notes: string[];
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(100);
  }
  return false;
}

export async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Posts `count` contactless events in batches of up to 1,000; returns when each batch was acknowledged. */
export async function ingestMarked(
  origin: string,
  target: { workspaceId: string; apiKey: string },
  run: string,
  ns: number[],
  batchSize = 1000,
) {
  const ackedAt = new Map<number, number>();
  for (let offset = 0; offset < ns.length; offset += batchSize) {
    const batch = ns.slice(offset, offset + batchSize);
    const response = await fetch(`${origin}/api/workspaces/${target.workspaceId}/events/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${target.apiKey}` },
      body: JSON.stringify({ events: batch.map((n) => ({ type: 'tick', metadata: { run, n } })) }),
    });
    await response.arrayBuffer();
    const at = performance.now();
    if (response.status === 201) for (const n of batch) ackedAt.set(n, at);
  }
  return ackedAt;
}

function receiptTotals(receipts: Map<string, { count: number }>) {
  let duplicated = 0;
  for (const receipt of receipts.values()) duplicated += receipt.count - 1;
  return duplicated;
}

/** Scenario 2a: the worker SIGKILLed while it delivers `count` webhook messages. */
export async function workerKilledDuringFanOut(
  service: Service,
  admin: Admin,
  receiver: WebhookReceiver,
  count: number,
): Promise<Row> {
  const target = await admin.workspace('Fan-out under faults');
  const endpoint = await admin.post('/webhooks', { url: receiver.url('fanout'), events: ['event.tracked'] });
  const receipts = () => receiver.byPath.get('fanout') ?? new Map();
  const ingesting = ingestMarked(service.origin, target, 'fanout', [...Array(count).keys()]);
  await waitFor(() => receipts().size >= count * 0.3, 120_000);
  const killedAt = performance.now();
  await service.worker.kill('SIGKILL');
  const exitedAt = performance.now();
  const killedWith = receipts().size;
  service.worker.start();
  const acknowledged = (await ingesting).size;
  await waitFor(() => receipts().size >= acknowledged, 180_000);
  const times = [...receipts().values()].map((receipt) => receipt.firstAt);
  const drained = Math.max(...times) - killedAt;
  const resumed = Math.min(...times.filter((at) => at > exitedAt)) - killedAt;
  await sleep(1000); // the last outcomes recorded
  const [totals] = await query<{ messages: number; waiting: number; undelivered: number }>(
    service.database.url,
    `select (select count(*)::int from webhook_messages where endpoint_id = $1) as messages,
            (select count(*)::int from webhook_attempts where endpoint_id = $1) as waiting,
            (select count(*)::int from webhook_messages m where endpoint_id = $1 and not exists (
               select 1 from webhook_deliveries d where d.message_id = m.id and d.success)) as undelivered`,
    [endpoint.id],
  );
  const notReceived = Math.max(0, acknowledged - receipts().size);
  return {
    scenario: '2a worker SIGKILL, webhook fan-out',
    load: `${count.toLocaleString('en')} events → 1 endpoint`,
    acknowledged: `${acknowledged.toLocaleString('en')} events`,
    lost: notReceived,
    duplicated: receiptTotals(receipts()),
    halfApplied: totals.waiting + Math.abs(totals.messages - acknowledged),
    recover: `${seconds(resumed)} to resume, ${seconds(drained)} all`,
    notes: [
      `killed after ${killedWith} receipts; ${totals.messages} messages made, ${totals.undelivered} without a successful delivery record, ${totals.waiting} attempts left; lease ${FAULT_SETTINGS.WEBHOOK_LEASE_MS} ms`,
    ],
  };
}

async function broadcastState(url: string, workspaceId: string) {
  const [row] = await query<{
    enrollments: number;
    active: number;
    messages: number;
    steps: number;
    pending: number;
    sent: number;
    interrupted: number;
    otherFailed: number;
  }>(
    url,
    `select (select count(*)::int from enrollments where workspace_id = $1) as enrollments,
            (select count(*)::int from enrollments where workspace_id = $1 and status = 'active') as active,
            count(*)::int as messages,
            count(distinct (enrollment_id, step_key))::int as steps,
            count(*) filter (where status in ('queued', 'sending'))::int as pending,
            count(*) filter (where status = 'sent')::int as sent,
            count(*) filter (where status = 'failed' and error = 'interrupted')::int as interrupted,
            count(*) filter (where status not in ('queued', 'sending', 'sent')
                             and not (status = 'failed' and error = 'interrupted'))::int as "otherFailed"
     from messages where workspace_id = $1`,
    [workspaceId],
  );
  return row;
}

/** Scenario 2b: the worker SIGKILLed during a broadcast email to `count` contacts. */
export async function workerKilledDuringBroadcast(
  service: Service,
  admin: Admin,
  sink: SmtpSink,
  count: number,
): Promise<Row> {
  const { workspaceId } = await admin.workspace('Broadcast under faults');
  const channel = { host: '127.0.0.1', port: sink.port, fromEmail: 'news@switchboard.test' };
  await admin.call('PUT', `/api/workspaces/${workspaceId}/channels/email`, channel);
  const segment = await admin.post('/segments', {
    name: 'Everyone',
    rules: { field: 'email', op: 'ends_with', value: '@sink.test' },
  });
  await admin.seedContacts(Array.from({ length: count }, (_, i) => `reader${i}@sink.test`));
  const campaign = await admin.post('/campaigns', {
    name: 'News',
    trigger: { type: 'broadcast', segmentId: segment.id },
    steps: [{ type: 'send', channel: 'email', subject: 'News', body: '<p>Hello {{ contact.email }}</p>' }],
  });
  await admin.post(`/campaigns/${campaign.id}/activate`);
  await waitFor(() => sink.byMessageId.size >= count * 0.3, 300_000);
  const killedAt = performance.now();
  await service.worker.kill('SIGKILL');
  const exitedAt = performance.now();
  const killedWith = sink.byMessageId.size;
  service.worker.start();
  let state = await broadcastState(service.database.url, workspaceId);
  // A broadcast sends at the campaign engine's pace (tens a second on a busy 2-core machine).
  const settledInTime = await waitFor(
    async () => {
      state = await broadcastState(service.database.url, workspaceId);
      return state.enrollments >= count && state.active === 0 && state.pending === 0;
    },
    Math.max(300_000, count * 250),
  );
  const settled = performance.now() - killedAt;
  const resumed = (sink.arrivals.find((at) => at > exitedAt) ?? Number.NaN) - killedAt;
  const outcomes = await query<{ id: string; status: string }>(
    service.database.url,
    `select id, status from messages where workspace_id = $1 and status in ('sent', 'failed')`,
    [workspaceId],
  );
  const received = (status: string) =>
    outcomes.filter((row) => row.status === status && sink.byMessageId.has(row.id)).length;
  const sentNotReceived = state.sent - received('sent');
  const sinkDuplicates = [...sink.byMessageId.values()].reduce((sum, n) => sum + n - 1, 0);
  return {
    scenario: '2b worker SIGKILL, email broadcast',
    load: `${count.toLocaleString('en')} contacts, 1 send step`,
    acknowledged: `${state.messages.toLocaleString('en')} messages`,
    // Not enrolled, or finished without its message, or `sent` and never received.
    lost:
      Math.max(0, count - state.enrollments) +
      Math.max(0, state.enrollments - state.active - state.steps) +
      sentNotReceived,
    duplicated: sinkDuplicates + (state.messages - state.steps),
    halfApplied: state.pending,
    recover: settledInTime
      ? `${seconds(resumed)} to resume, ${seconds(settled)} all`
      : `${seconds(resumed)} to resume; ${state.active} not yet sent after ${seconds(settled)}`,
    notes: [
      `killed after ${killedWith} emails received (${sink.connectionErrors.length} connections reset at the sink); ${state.sent} sent, ${state.interrupted} failed "interrupted" (never resent; ${received('failed')} of them had reached the sink), ${state.otherFailed} other outcomes, ${state.pending} still queued/sending; send lease ${Number(FAULT_SETTINGS.MESSAGE_SEND_LEASE_MS) / 1000} s, sweep each minute`,
    ],
  };
}
