// The parent's side of the SMTP thread (smtpThread.ts): pooled transports that live in the thread,
// each known here by a key of its own (a rebuilt transport never shares one with the transport it
// replaces, so closing the old cannot close the new). The thread starts on the first send. If it
// dies, every send in flight fails as a broken connection would (a retry, src/channels/email/send.ts)
// and the next send starts a new thread, where each pool opens again on its first use.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { SendMailOptions } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { FromThread, ToThread } from './smtpThread.ts';

export type PoolDelivery = { accepted: string[]; response: string; messageId: string };

type Waiting = { resolve: (delivery: PoolDelivery) => void; reject: (error: Error) => void };
type Thread = { worker: Worker; waiting: Map<number, Waiting> };

/**
 * A ceiling on the thread's old generation: it keeps only its pools and the messages in flight
 * (MESSAGE_SENDS_IN_FLIGHT a workspace), about 11 MB in a broadcast. Its young generation follows
 * the process's --max-semi-space-size (the Procfile's), whatever a limit here says.
 */
const THREAD_HEAP = { maxOldGenerationSizeMb: 64 };

/** How long a stopping thread may take to say QUIT on its connections before it is terminated. */
const STOP_GRACE_MS = 2_000;

let thread: Thread | null = null;
let sends = 0;
let pools = 0;

/** An Error carrying what nodemailer's carried, so it is classified as the original would be. */
const smtpError = (error: FromThread & { ok: false }) =>
  Object.assign(new Error(error.error.message), error.error);

function ended(ending: Thread, cause: string) {
  if (thread === ending) thread = null;
  const error = Object.assign(new Error(`SMTP thread stopped: ${cause}`), { code: 'ECONNECTION' });
  for (const waiting of ending.waiting.values()) waiting.reject(error);
  ending.waiting.clear();
}

function start(): Thread {
  const worker = new Worker(new URL('./smtpThread.ts', import.meta.url), { resourceLimits: THREAD_HEAP });
  const started: Thread = { worker, waiting: new Map() };
  // Idle pooled connections do not keep the process alive; a send in flight does (see send).
  worker.unref();
  worker.on('message', (reply: FromThread) => {
    const waiting = started.waiting.get(reply.id);
    started.waiting.delete(reply.id);
    if (started.waiting.size === 0) worker.unref();
    if (reply.ok)
      waiting?.resolve({ accepted: reply.accepted, response: reply.response, messageId: reply.messageId });
    else waiting?.reject(smtpError(reply));
  });
  worker.on('error', (error) => ended(started, error.message));
  worker.on('exit', (code) => ended(started, `exit code ${code}`));
  return started;
}

export type SmtpPool = {
  send: (mail: SendMailOptions) => Promise<PoolDelivery>;
  close: () => void;
};

/** A pooled transport with these nodemailer options, opened in the thread on its first send. */
export function smtpPool(options: SMTPPool.Options): SmtpPool {
  const key = `pool_${++pools}`;
  let openedIn: Thread | null = null;
  const post = (target: Thread, message: ToThread) => target.worker.postMessage(message);
  return {
    send: (mail) => {
      thread ??= start();
      const current = thread;
      if (openedIn !== current) {
        post(current, { kind: 'open', pool: key, options });
        openedIn = current;
      }
      const id = ++sends;
      const delivered = new Promise<PoolDelivery>((resolve, reject) =>
        current.waiting.set(id, { resolve, reject }),
      );
      current.worker.ref();
      post(current, { kind: 'send', id, pool: key, mail });
      return delivered;
    },
    close: () => {
      if (openedIn && openedIn === thread) post(openedIn, { kind: 'close', pool: key });
      openedIn = null;
    },
  };
}

/** Closes every pool's connections (QUIT) and ends the thread: the last step of a shutdown. */
export async function stopSmtpThread(): Promise<void> {
  const stopping = thread;
  if (!stopping) return;
  thread = null;
  const exited = once(stopping.worker, 'exit');
  stopping.worker.postMessage({ kind: 'stop' } satisfies ToThread);
  const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
  if ((await Promise.race([exited.then(() => 'exited'), grace])) !== 'exited')
    await stopping.worker.terminate();
}
