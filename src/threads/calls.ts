// Calls to a worker thread whose replies name the call they answer (`id`). Each call is a promise
// settled by its reply; when the thread fails or exits, every call still waiting fails with the
// error `stopped` makes of the cause (the thread's error, or its exit code). Used by the SMTP thread
// (src/channels/email/smtpPool.ts) and an import's checking threads (src/imports/checkThreads.ts).
import { type TransferListItem, Worker, type WorkerOptions } from 'node:worker_threads';

export type ThreadCalls<Request extends { id: number }, Reply extends { id: number }> = {
  /** The thread, for messages that are not calls and for stopping it. */
  worker: Worker;
  call: (request: Request, transfer?: readonly TransferListItem[]) => Promise<Reply>;
};

export type ThreadCallOptions = WorkerOptions & {
  stopped: (cause: Error | number) => Error;
  /** Called once the thread has failed or exited (after the waiting calls were failed). */
  onStop?: () => void;
  /** Keep the process alive only while a call waits (an idle thread of pooled connections does not). */
  refWhileWaiting?: boolean;
};

export function startThreadCalls<Request extends { id: number }, Reply extends { id: number }>(
  entry: URL,
  { stopped, onStop, refWhileWaiting, ...options }: ThreadCallOptions,
): ThreadCalls<Request, Reply> {
  const worker = new Worker(entry, options);
  const waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  if (refWhileWaiting) worker.unref();
  const stop = (cause: Error | number) => {
    const error = stopped(cause);
    for (const call of waiting.values()) call.reject(error);
    waiting.clear();
    onStop?.();
  };
  worker.on('message', (reply: Reply) => {
    waiting.get(reply.id)?.resolve(reply);
    waiting.delete(reply.id);
    if (refWhileWaiting && waiting.size === 0) worker.unref();
  });
  worker.on('error', stop);
  worker.on('exit', stop);
  return {
    worker,
    call: (request, transfer) => {
      const reply = new Promise<Reply>((resolve, reject) => waiting.set(request.id, { resolve, reject }));
      // Seen where the call is awaited, whenever that is; never an unhandled rejection meanwhile.
      reply.catch(() => {});
      if (refWhileWaiting) worker.ref();
      worker.postMessage(request, transfer);
      return reply;
    },
  };
}
