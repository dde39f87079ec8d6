// The thread that talks SMTP (started by smtpPool.ts). nodemailer building and writing each
// message's MIME was about half of the worker's CPU, on the same event loop as the claims, the
// renders and the database; here it runs beside them, on the machine's other core. The thread
// holds one pooled transport per workspace, opened, used and closed by messages from its parent;
// it reads no database, no configuration and no secret store: the parent sends what it needs.

import { randomBytes } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';

export type ToThread =
  | { kind: 'open'; pool: string; options: SMTPPool.Options }
  | { kind: 'send'; id: number; pool: string; mail: SendMailOptions }
  | { kind: 'close'; pool: string }
  | { kind: 'stop' };

/** What the parent needs of nodemailer's error to classify it (src/channels/email/send.ts). */
export type ThreadError = {
  message: string;
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
};

export type FromThread =
  | { id: number; ok: true; accepted: string[]; response: string; messageId: string }
  | { id: number; ok: false; error: ThreadError };

const pools = new Map<string, Transporter>();

function close(pool: string) {
  pools.get(pool)?.close();
  pools.delete(pool);
}

function errorOf(error: unknown): ThreadError {
  const smtp = error as Partial<ThreadError> & { message?: string };
  return {
    message: String(smtp.message ?? error),
    code: smtp.code,
    command: smtp.command,
    responseCode: smtp.responseCode,
    response: smtp.response,
  };
}

async function send(port: NonNullable<typeof parentPort>, id: number, pool: string, mail: SendMailOptions) {
  try {
    // The MIME is built into one buffer first and handed over as `raw` (DKIM still signs it): streamed
    // from its parts, each message went to the socket in about 15 writes, and the writes were a
    // quarter of this thread's time. One random boundary base serves the message's parts (nodemailer
    // draws one per part), and our Message-ID goes again with the raw message (else nodemailer draws
    // a new one for it). A pool is always opened before its first send (messages arrive in order).
    const transporter = pools.get(pool)!;
    const composed = new MailComposer({ ...mail, baseBoundary: randomBytes(8).toString('hex') }).compile();
    const raw = await composed.build();
    const messageId = composed.messageId();
    const info = await transporter.sendMail({ raw, envelope: composed.getEnvelope(), messageId });
    const accepted = (info.accepted as (string | { address: string })[]).map((to) =>
      typeof to === 'string' ? to : to.address,
    );
    port.postMessage({ id, ok: true, accepted, response: info.response ?? '', messageId });
  } catch (error) {
    port.postMessage({ id, ok: false, error: errorOf(error) });
  }
}

function serve(port: NonNullable<typeof parentPort>) {
  port.on('message', (message: ToThread) => {
    switch (message.kind) {
      case 'open':
        close(message.pool);
        pools.set(message.pool, nodemailer.createTransport(message.options));
        return;
      case 'send':
        void send(port, message.id, message.pool, message.mail);
        return;
      case 'close':
        close(message.pool);
        return;
      case 'stop':
        // QUIT on every pooled connection; the thread ends once their sockets have closed.
        for (const pool of [...pools.keys()]) close(pool);
        port.close();
    }
  });
}

if (parentPort) serve(parentPort);
