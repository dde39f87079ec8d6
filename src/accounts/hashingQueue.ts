// A bounded queue in front of argon2. Each derivation holds 19 MiB and a libuv thread for tens of
// milliseconds; without a bound, a thousand concurrent registrations fill the thread pool and every
// sign-in (and every other use of the pool: DNS, file reads) waits behind them. At most
// `concurrency` derivations run at once; password checks (sign-in) are served before new hashes
// (registration); a full queue answers 503 with Retry-After at once instead of queueing forever.
import { ServiceUnavailableError } from '../core/errors.ts';

export type HashingPriority = 'urgent' | 'normal';
export type HashingLimits = { concurrency: number; queue: number };

export class HashingQueue {
  private running = 0;
  private readonly waiting: Record<HashingPriority, (() => void)[]> = { urgent: [], normal: [] };
  readonly limits: HashingLimits;

  constructor(limits: HashingLimits) {
    this.limits = limits;
  }

  async run<T>(priority: HashingPriority, work: () => Promise<T>): Promise<T> {
    if (this.running < this.limits.concurrency) this.running++;
    else {
      const queue = this.waiting[priority];
      if (queue.length >= this.limits.queue) {
        throw new ServiceUnavailableError('The server is busy checking passwords. Try again shortly.', 1);
      }
      // The releasing task hands its slot over, so `running` stays as it is.
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.waiting.urgent.shift() ?? this.waiting.normal.shift();
    if (next) next();
    else this.running--;
  }
}

// One queue per process: the thread pool it protects is per process.
let current = new HashingQueue({ concurrency: 2, queue: 64 });

/** Sets the process's limits (from configuration, at start-up); work already queued finishes. */
export function limitPasswordHashing(limits: HashingLimits): void {
  if (limits.concurrency === current.limits.concurrency && limits.queue === current.limits.queue) return;
  current = new HashingQueue(limits);
}

export function passwordHashing(): HashingQueue {
  return current;
}
