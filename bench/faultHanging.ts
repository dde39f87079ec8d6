// Scenario 4 of bench/faults.ts: two healthy endpoints, then a third that accepts requests and never
// answers. Its attempts must end at WEBHOOK_TIMEOUT_MS, and the healthy endpoints' delivery latency
// (from the batch's 201 to the receipt) must not follow it up: WEBHOOK_ENDPOINT_CONCURRENCY keeps
// the hanging endpoint to its own share of the worker's slots.
import { ingestMarked, query, type Row, sleep, waitFor } from './faultDelivery.ts';
import type { WebhookReceiver } from './faultReceivers.ts';
import { startHangingReceiver } from './faultReceivers.ts';
import { type Admin, FAULT_SETTINGS, type Service } from './faultService.ts';

const HEALTHY = ['fast1', 'fast2'];
const BATCH = 100;

function percentile(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : Number.NaN;
}

/** Posts `ns` in paced batches; returns each healthy delivery's latency and what did not arrive. */
async function measure(
  service: Service,
  target: { workspaceId: string; apiKey: string },
  receiver: WebhookReceiver,
  ns: number[],
) {
  const ackedAt = new Map<number, number>();
  for (let offset = 0; offset < ns.length; offset += BATCH) {
    const acked = await ingestMarked(
      service.origin,
      target,
      'latency',
      ns.slice(offset, offset + BATCH),
      BATCH,
    );
    for (const [n, at] of acked) ackedAt.set(n, at);
    await sleep(100);
  }
  const arrived = (name: string) =>
    [...(receiver.byPath.get(name)?.values() ?? [])].filter((receipt) => ackedAt.has(receipt.n ?? -1));
  await waitFor(() => HEALTHY.every((name) => arrived(name).length >= ackedAt.size), 120_000);
  const latencies = HEALTHY.flatMap((name) =>
    arrived(name).map((receipt) => receipt.firstAt - (ackedAt.get(receipt.n as number) as number)),
  );
  const missing = HEALTHY.reduce((sum, name) => sum + ackedAt.size - arrived(name).length, 0);
  const duplicated = HEALTHY.flatMap(arrived).reduce((sum, receipt) => sum + receipt.count - 1, 0);
  return { acknowledged: ackedAt.size, latencies, missing, duplicated };
}

const ms = (value: number) => `${value.toFixed(0)} ms`;

export async function hangingReceiver(
  service: Service,
  admin: Admin,
  receiver: WebhookReceiver,
  count: number,
): Promise<Row> {
  const target = await admin.workspace('A hanging receiver');
  for (const name of HEALTHY)
    await admin.post('/webhooks', { url: receiver.url(name), events: ['event.tracked'] });
  const without = await measure(service, target, receiver, [...Array(count).keys()]);
  const hanging = await startHangingReceiver();
  try {
    const stuck = await admin.post('/webhooks', { url: hanging.url, events: ['event.tracked'] });
    const withHanging = await measure(
      service,
      target,
      receiver,
      [...Array(count).keys()].map((n) => n + count),
    );
    const timeout = Number(FAULT_SETTINGS.WEBHOOK_TIMEOUT_MS);
    await sleep(timeout + 1000);
    const [attempts] = await query<{ n: number; timeouts: number; avg: number; max: number }>(
      service.database.url,
      `select count(*)::int as n, count(*) filter (where error like 'timeout%')::int as timeouts,
              coalesce(avg(duration_ms), 0)::float as avg, coalesce(max(duration_ms), 0)::int as max
       from webhook_deliveries where endpoint_id = $1`,
      [stuck.id],
    );
    // Leaves the hanging endpoint off, so that nothing after this waits on it.
    await admin.call('PATCH', `/api/workspaces/${target.workspaceId}/webhooks/${stuck.id}`, {
      active: false,
    });
    const spread = (values: number[]) =>
      `p50 ${ms(percentile(values, 0.5))}, p99 ${ms(percentile(values, 0.99))}`;
    return {
      scenario: '4 receiver that never answers',
      load: `2 healthy endpoints × ${count.toLocaleString('en')} events, twice`,
      acknowledged: `${(without.acknowledged + withHanging.acknowledged).toLocaleString('en')} events`,
      lost: without.missing + withHanging.missing,
      duplicated: without.duplicated + withHanging.duplicated,
      halfApplied: 0,
      recover: `p99 ${ms(percentile(without.latencies, 0.99))} → ${ms(percentile(withHanging.latencies, 0.99))}`,
      notes: [
        `healthy endpoints' 201 → receipt latency without the hanging endpoint: ${spread(without.latencies)}; with it: ${spread(withHanging.latencies)}`,
        `the hanging endpoint: ${attempts.n} attempts recorded, ${attempts.timeouts} ended "timeout" after ${ms(attempts.avg)} on average (max ${ms(attempts.max)}; WEBHOOK_TIMEOUT_MS ${timeout})`,
      ],
    };
  } finally {
    await hanging.close();
  }
}
