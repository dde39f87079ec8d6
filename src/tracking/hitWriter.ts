// Group commit of hits. Concurrent hits share one INSERT (insertHits): a click costs the service a
// share of one statement instead of one of its own, which is what lets a redirect keep up with a
// bare one. Each request still answers only after its hit is stored. At most WRITES_IN_FLIGHT
// statements run at once; hits arriving meanwhile go together in the next.
import type { AppContext } from '../core/context.ts';
import { queueClassification } from './jobs.ts';
import { insertHits, type NewHit } from './queries.ts';

const WRITES_IN_FLIGHT = 2;
const MAX_GROUP = 500;
/** The classification job is queued at most this often per process (it is stately anyway). */
const QUEUE_EVERY_MS = 1_000;

type Waiting = { hit: NewHit; resolve: () => void; reject: (error: unknown) => void };

export type HitWriter = (hit: NewHit) => Promise<void>;

export function createHitWriter(app: AppContext): HitWriter {
  const waiting: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;
  let queuedAt = 0;

  const queueJob = () => {
    if (Date.now() - queuedAt < QUEUE_EVERY_MS) return;
    queuedAt = Date.now();
    // The job each minute covers a failure here: the hits are stored.
    queueClassification(app).catch((error: unknown) =>
      app.log.warn({ err: error }, 'could not queue tracking classification'),
    );
  };

  const flush = async () => {
    const group = waiting.splice(0, MAX_GROUP);
    try {
      await insertHits(
        app.db,
        group.map((entry) => entry.hit),
      );
      for (const entry of group) entry.resolve();
      queueJob();
    } catch (error) {
      for (const entry of group) entry.reject(error);
    } finally {
      inFlight--;
      start();
    }
  };

  const start = () => {
    if (scheduled || inFlight >= WRITES_IN_FLIGHT || waiting.length === 0) return;
    scheduled = true;
    // After the current I/O phase, so hits that arrived together are written together.
    setImmediate(() => {
      scheduled = false;
      inFlight++;
      void flush();
    });
  };

  return (hit) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ hit, resolve, reject });
      start();
    });
}
