// A local SMTP sink (smtp-server) that keeps what it receives, parsed with mailparser, and can
// refuse chosen recipients at RCPT (550: a hard bounce; 451: deferred). The email channel is
// pointed at it through the channel boundary, with a pooled nodemailer transport as in production.
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { type ParsedMail, simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { type ChannelSender, registerChannelSender, type SendOutcome } from '../../src/messages/index.ts';
import type { Client } from '../support/client.ts';
import { eventually, keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';

export type Received = { to: string[]; mail: ParsedMail; headers: Record<string, string> };

export type Sink = {
  port: number;
  received: Received[];
  /** address → SMTP code to answer at RCPT (550, 451 …) */
  refuse: Map<string, number>;
  close: () => Promise<void>;
};

/** Exact header values from `headerLines` (mailparser folds List-* under `list`), unfolded. */
function headerMap(mail: ParsedMail): Record<string, string> {
  return Object.fromEntries(
    mail.headerLines.map((h) => [
      h.key,
      h.line
        .slice(h.line.indexOf(':') + 1)
        .replace(/\r?\n\s+/g, ' ')
        .trim(),
    ]),
  );
}

export async function startSink(): Promise<Sink> {
  const received: Received[] = [];
  const refuse = new Map<string, number>();
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = refuse.get(address.address);
      if (code)
        return callback(
          Object.assign(new Error(`${code === 550 ? '5.1.1 user unknown' : '4.2.0 try later'}`), {
            responseCode: code,
          }),
        );
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then((mail) => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), mail, headers: headerMap(mail) });
        callback(null, `queued as sink-${received.length}`);
      }, callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  return { port, received, refuse, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}

/** What the email channel does with an SMTP answer, for a sink on `port`. */
export function smtpSender(port: number): ChannelSender & { close: () => void } {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: 5,
    maxMessages: Number.POSITIVE_INFINITY,
  });
  const send: ChannelSender = async (_app, _workspaceId, message): Promise<SendOutcome> => {
    try {
      const { 'Message-ID': messageId, ...headers } = message.headers;
      const info = await transport.sendMail({
        from: '"Acme" <news@acme.test>',
        to: message.to,
        subject: message.subject,
        html: message.html,
        text: message.text,
        messageId,
        headers,
      });
      return { status: 'sent', providerId: info.messageId, response: info.response };
    } catch (error) {
      const smtp = error as { responseCode?: number; response?: string; command?: string; message: string };
      const text = smtp.response ?? smtp.message;
      if (smtp.responseCode && smtp.responseCode >= 500) {
        return {
          status: smtp.command === 'RCPT TO' ? 'bounce' : 'permanent',
          error: text,
          stage: smtp.command,
        };
      }
      return { status: 'retry', error: text, stage: smtp.command };
    }
  };
  return Object.assign(send, { close: () => transport.close() });
}

/** A sink, wired as the email channel for the rest of the file. */
export async function emailSinkChannel(): Promise<Sink> {
  const sink = await startSink();
  const sender = smtpSender(sink.port);
  registerChannelSender('email', sender);
  const closeSink = sink.close;
  // The pooled transport keeps its connections open; the sink waits for them when closing.
  const close = () => {
    sender.close();
    return closeSink();
  };
  return { ...sink, close };
}

export async function messagingWorkspace() {
  const { client: admin, workspaceId } = await workspaceWithAdmin('Acme Shop');
  const { client } = await keyClient(admin, workspaceId, [
    'messages:read',
    'messages:write',
    'contacts:read',
    'contacts:write',
    'campaigns:read',
    'campaigns:write',
  ]);
  const base = `/api/workspaces/${workspaceId}`;
  return { admin, client, workspaceId, base };
}

export async function makeContact(client: Client, base: string, fields: Record<string, unknown>) {
  const created = await client.post(`${base}/contacts`, fields);
  expect(created.status, created.text).to.equal(201);
  return created.body.id as string;
}

export async function waitForStatus(client: Client, base: string, messageId: string, status: string) {
  return eventually(async () => {
    const got = await client.get(`${base}/messages/${messageId}`);
    return got.body.status === status ? got.body : null;
  });
}

const OutgoingRow = z.object({ data: z.record(z.string(), z.unknown()) });

export async function outgoing(workspaceId: string, type: string) {
  const rows = await server().context.db.any(sql.type(OutgoingRow)`
    select data from outgoing_events where workspace_id = ${workspaceId} and type = ${type} order by id
  `);
  return rows.map((row) => row.data);
}
