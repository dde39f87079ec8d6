// Scenarios 1 and 3 of bench/faults.ts: the web process SIGKILLed under ingest load (and started
// again at once, as a platform restarts a crashed process), and PostgreSQL restarted (fast
// shutdown, a few seconds down, start) under the same load. The checker is in faultIngest.ts.
import { ingestMarked, type Row, sleep, waitFor } from './faultDelivery.ts';
import { checkIngest, INGEST_PATH, type IngestWorkspace } from './faultIngest.ts';
import { IngestLoad } from './faultLoad.ts';
import type { WebhookReceiver } from './faultReceivers.ts';
import type { Service } from './faultService.ts';

export type Sizes = { connections: number; batch: number; warmMs: number; outageMs: number };

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function startLoad(service: Service, workspace: IngestWorkspace, run: string, sizes: Sizes) {
  const load = new IngestLoad({ origin: service.origin, ...workspace }, run, sizes.batch);
  load.start(sizes.connections);
  return load;
}

/** When the first 201 answered after `since` arrived (performance.now()), or null. */
async function firstSuccessAfter(load: IngestLoad, since: number, ms: number) {
  const found = () => load.outcomes.find((outcome) => outcome.status === 201 && outcome.at > since);
  await waitFor(() => found() !== undefined, ms);
  return found()?.at ?? null;
}

/**
 * Waits (up to two minutes) until the ingest workspace's endpoint has received every stored event of
 * `run`, so the worker's backlog does not spill into the next scenario; says how many came.
 */
async function deliveredToEndpoint(receiver: WebhookReceiver, run: string, stored: number) {
  const delivered = () =>
    new Set(
      [...(receiver.byPath.get(INGEST_PATH)?.values() ?? [])]
        .filter((receipt) => receipt.run === run)
        .map((receipt) => receipt.n),
    ).size;
  const started = performance.now();
  await waitFor(() => delivered() >= stored, 120_000);
  return `${delivered()} of the ${stored} stored events delivered to the listening endpoint (${seconds(performance.now() - started)} after the check)`;
}

const loadText = (sizes: Sizes) =>
  `${sizes.connections} connections, single events + batches of ${sizes.batch}`;

export async function webKilled(
  service: Service,
  workspace: IngestWorkspace,
  sizes: Sizes,
  receiver: WebhookReceiver,
): Promise<Row> {
  const load = startLoad(service, workspace, 'kill-web', sizes);
  await sleep(sizes.warmMs);
  const killedAt = performance.now();
  await service.web.kill('SIGKILL');
  const exitedAt = performance.now();
  service.web.start();
  const recovered = await firstSuccessAfter(load, exitedAt, 60_000);
  await sleep(sizes.warmMs);
  await load.stop();
  const check = await checkIngest(service.database.url, workspace, 'kill-web', load);
  const delivered = await deliveredToEndpoint(receiver, 'kill-web', check.stored);
  return {
    scenario: '1 web SIGKILL',
    load: loadText(sizes),
    acknowledged: `${check.acknowledged.toLocaleString('en')} events`,
    lost: check.lost,
    duplicated: check.duplicated,
    halfApplied: check.halfApplied,
    recover: recovered === null ? 'never' : `${seconds(recovered - killedAt)} to a 201`,
    notes: [
      `${check.unanswered.requests} requests unanswered (${check.unanswered.events} events): ${check.unanswered.stored} of those events stored, each request all or nothing; ${check.stored} events stored in all`,
      delivered,
      ...check.problems,
    ],
  };
}

type Probe = { at: number; status: number; ms: number };

/** GET /api/health every 200 ms until stopped. */
function pollHealth(origin: string) {
  const probes: Probe[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const sent = performance.now();
      let status = 0;
      try {
        const response = await fetch(`${origin}/api/health`, { signal: AbortSignal.timeout(10_000) });
        await response.arrayBuffer();
        status = response.status;
      } catch {}
      probes.push({ at: performance.now(), status, ms: performance.now() - sent });
      await sleep(200);
    }
  })();
  return {
    probes,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

export async function databaseRestarted(
  service: Service,
  workspace: IngestWorkspace,
  sizes: Sizes,
  receiver: WebhookReceiver,
  probeWorker: () => Promise<number | null>,
): Promise<Row> {
  const pids = { web: service.web.pid, worker: service.worker.pid };
  const health = pollHealth(service.origin);
  const load = startLoad(service, workspace, 'restart-db', sizes);
  await sleep(sizes.warmMs);
  const stoppedAt = performance.now();
  await service.database.stop();
  await sleep(sizes.outageMs);
  await service.database.start();
  const startedAt = performance.now();
  const recovered = await firstSuccessAfter(load, startedAt, 60_000);
  await sleep(sizes.warmMs);
  await load.stop();
  await health.stop();
  const check = await checkIngest(service.database.url, workspace, 'restart-db', load);
  const delivered = await deliveredToEndpoint(receiver, 'restart-db', check.stored);
  const workerMs = await probeWorker();
  const during = load.outcomes.filter((o) => o.at > stoppedAt && o.status !== 201);
  const errors = during.filter((o) => o.status >= 500 && o.status !== 503).length;
  const improper = during.filter(
    (o) => o.status === 503 && (!o.problem || !(Number(o.retryAfter) >= 1)),
  ).length;
  const unanswered = during.filter((o) => o.status === 0).length;
  const slowest = Math.max(0, ...during.map((o) => o.ms));
  const healthDown = health.probes.filter((p) => p.at > stoppedAt && p.at < startedAt);
  const sameProcesses =
    pids.web === service.web.pid &&
    pids.worker === service.worker.pid &&
    service.web.alive &&
    service.worker.alive;
  return {
    scenario: '3 PostgreSQL restart',
    load: `${loadText(sizes)}; down ${seconds(sizes.outageMs)}`,
    acknowledged: `${check.acknowledged.toLocaleString('en')} events`,
    lost: check.lost,
    duplicated: check.duplicated,
    halfApplied: check.halfApplied,
    recover: recovered === null ? 'never' : `${seconds(recovered - startedAt)} after start`,
    notes: [
      `during the outage: ${during.filter((o) => o.status === 503).length} answers 503 (${improper} without problem+json and Retry-After), ${errors} other 5xx, ${unanswered} unanswered; slowest non-201 answer ${seconds(slowest)}`,
      delivered,
      `health while down: ${healthDown.filter((p) => p.status === 503).length} of ${healthDown.length} probes 503 (slowest ${seconds(Math.max(0, ...healthDown.map((p) => p.ms)))}); web and worker ${sameProcesses ? 'kept running (same pids, pools reconnected)' : 'were restarted or died'}; worker delivered a new webhook ${workerMs === null ? 'never' : `${seconds(workerMs)} after the load`}`,
      ...check.problems,
    ],
  };
}

/** Ingests one event in the fan-out workspace and waits for its webhook; the time it took, or null. */
export function workerProbe(
  service: Service,
  target: { workspaceId: string; apiKey: string },
  receiver: WebhookReceiver,
) {
  let next = 1_000_000;
  return async () => {
    const n = next++;
    const started = performance.now();
    await ingestMarked(service.origin, target, 'probe', [n]);
    const arrived = () =>
      [...(receiver.byPath.get('probe')?.values() ?? [])].some((receipt) => receipt.n === n);
    return (await waitFor(arrived, 60_000)) ? performance.now() - started : null;
  };
}
