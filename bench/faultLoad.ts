// The ingest load of bench/faults.ts, from the bench's process through the real HTTP API: `connections`
// loops posting single events, and every tenth request a batch, each event marked in its metadata
// with the run and a sequence number `n`, so the checker can find it (or not) in the database.
import { Pool } from 'undici';

export type Outcome = {
  /** 0: no answer (the connection failed or was cut). */
  status: number;
  ns: number[];
  ids: string[];
  ms: number;
  /** When the answer came, performance.now(). */
  at: number;
  problem: boolean;
  retryAfter: string | null;
};

export type IngestTarget = { origin: string; workspaceId: string; apiKey: string; emails: string[] };

const BATCH_EVERY = 10;

export class IngestLoad {
  readonly outcomes: Outcome[] = [];
  private next = 0;
  private running = true;
  private loops: Promise<void>[] = [];
  private readonly pool: Pool;
  private readonly target: IngestTarget;
  private readonly run: string;
  private readonly batchSize: number;

  constructor(target: IngestTarget, run: string, batchSize: number) {
    this.target = target;
    this.run = run;
    this.batchSize = batchSize;
    // A request cut off by a fault gets an error, and the loop goes on with the next one.
    this.pool = new Pool(target.origin, { connections: 64, pipelining: 1, headersTimeout: 60_000 });
  }

  start(connections: number) {
    this.loops = Array.from({ length: connections }, (_, loop) => this.loop(loop));
  }

  async stop() {
    this.running = false;
    await Promise.all(this.loops);
    await this.pool.close();
  }

  /** Events answered 2xx. */
  get acknowledged() {
    return this.outcomes.filter((outcome) => outcome.status === 201).reduce((sum, o) => sum + o.ns.length, 0);
  }

  private event() {
    const n = this.next++;
    const email = this.target.emails[n % this.target.emails.length];
    const type = Math.random() < 0.5 ? 'purchase' : 'page_view';
    return { n, body: { type, email, metadata: { run: this.run, n } } };
  }

  private async loop(loop: number) {
    for (let request = 0; this.running; request++) {
      const batch = request % BATCH_EVERY === loop % BATCH_EVERY;
      const events = Array.from({ length: batch ? this.batchSize : 1 }, () => this.event());
      const body = batch ? { events: events.map((event) => event.body) } : events[0].body;
      const outcome = await this.post(batch ? '/events/batch' : '/events', body);
      this.outcomes.push({ ...outcome, ns: events.map((event) => event.n) });
      // A refused connection (the web process is down) fails at once: back off as a client
      // would, rather than take the CPU the restarting process needs.
      if (outcome.status === 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private async post(path: string, body: unknown): Promise<Omit<Outcome, 'ns'>> {
    const sent = performance.now();
    try {
      const response = await this.pool.request({
        method: 'POST',
        path: `/api/workspaces/${this.target.workspaceId}${path}`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.target.apiKey}` },
        body: JSON.stringify(body),
      });
      const text = await response.body.text();
      const at = performance.now();
      const type = String(response.headers['content-type'] ?? '');
      const parsed = response.statusCode === 201 ? JSON.parse(text) : undefined;
      return {
        status: response.statusCode,
        ids: parsed ? (parsed.data ?? [parsed]).map((event: { id: string }) => event.id) : [],
        ms: at - sent,
        at,
        problem: type.startsWith('application/problem+json'),
        retryAfter: (response.headers['retry-after'] as string | undefined) ?? null,
      };
    } catch {
      const at = performance.now();
      return { status: 0, ids: [], ms: at - sent, at, problem: false, retryAfter: null };
    }
  }
}
