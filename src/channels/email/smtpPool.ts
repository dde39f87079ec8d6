// The parent's side of the SMTP thread (smtpThread.ts): pooled transports that live in the thread,
// each known here by a key of its own (a rebuilt transport never shares one with the transport it
// replaces, so closing the old cannot close the new). The thread starts on the first send. If it
// dies, every send in flight fails as a broken connection would (a retry, src/channels/email/send.ts)
// and the next send starts a new thread, where each pool opens again on its first use.
import { once } from 'node:events';
import type { SendMailOptions } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { startThreadCalls, type ThreadCalls } from '../../threads/calls.ts';
import type { FromThread, ToThread } from './smtpThread.ts';

export type PoolDelivery = { accepted: string[]; response: string; messageId: string };

type Thread = ThreadCalls<Extract<ToThread, { kind: 'send' }>, FromThread>;

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

function start(): Thread {
  const started: Thread = startThreadCalls(new URL('./smtpThread.ts', import.meta.url), {
    resourceLimits: THREAD_HEAP,
    // Idle pooled connections do not keep the process alive; a send in flight does.
    refWhileWaiting: true,
    // A send the thread cannot finish fails as a broken connection would: a retry.
    stopped: (cause) =>
      Object.assign(
        new Error(`SMTP thread stopped: ${cause instanceof Error ? cause.message : `exit code ${cause}`}`),
        { code: 'ECONNECTION' },
      ),
    onStop: () => {
      if (thread === started) thread = null;
    },
  });
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
    send: async (mail) => {
      thread ??= start();
      const current = thread;
      if (openedIn !== current) {
        post(current, { kind: 'open', pool: key, options });
        openedIn = current;
      }
      const reply = await current.call({ kind: 'send', id: ++sends, pool: key, mail });
      if (!reply.ok) throw smtpError(reply);
      return { accepted: reply.accepted, response: reply.response, messageId: reply.messageId };
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
