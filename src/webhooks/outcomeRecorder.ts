// Recording the dispatcher's outcomes in batches, and the one-at-a-time runner both use.
import type { AppContext } from '../core/context.ts';
import { type Outcome, recordOutcomes } from './attempts.ts';

const FLUSH_BATCH = 500;
// Recording later only delays bookkeeping (the receiver already has the request); bigger batches
// mean fewer commits.
const FLUSH_DELAY_MS = 20;

/** Runs `task` now, or once more right after the run in progress: never two at a time. */
export function serialised(task: () => Promise<void>) {
  let running: Promise<void> | null = null;
  let again = false;
  const trigger = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = task().finally(() => {
      running = null;
      if (again) {
        again = false;
        void trigger();
      }
    });
    return running;
  };
  return trigger;
}

/** Buffers outcomes and records them in batches, one transaction at a time. */
export class OutcomeRecorder {
  private readonly outcomes: Outcome[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly context: AppContext;
  private readonly onRetry: (inMs: number) => void;
  readonly flush = serialised(() => this.drain());

  constructor(context: AppContext, onRetry: (inMs: number) => void) {
    this.context = context;
    this.onRetry = onRetry;
  }

  add(outcome: Outcome): void {
    this.outcomes.push(outcome);
    if (this.outcomes.length >= FLUSH_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  async close(): Promise<void> {
    this.stopping = true;
    await this.flush();
  }

  private async drain(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.outcomes.length > 0) {
      const batch = this.outcomes.splice(0, FLUSH_BATCH);
      try {
        const retryInMs = await recordOutcomes(this.context.db, this.context.config, batch);
        if (retryInMs !== null) this.onRetry(retryInMs);
      } catch (error) {
        // Unrecorded attempts keep their rows: once the lease runs out they are sent again.
        this.context.log.error({ err: error, attempts: batch.length }, 'recording webhook outcomes failed');
        if (this.stopping) return;
        this.outcomes.unshift(...batch);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }
}
