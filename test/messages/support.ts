// Messages tests' helpers: the channels' local SMTP sink (it can refuse chosen recipients at RCPT:
// 550 a hard bounce, 451 deferred) with what it accepted parsed; each test workspace's email
// channel is configured through the API to send to it.
import { expect } from 'chai';
import { type ParsedMail, simpleParser } from 'mailparser';
import { z } from 'zod';
import { closeChannels } from '../../src/channels/index.ts';
import { sql } from '../../src/db/pool.ts';
import { headerValues, type SmtpSink, startSmtpSink } from '../channels/smtpSink.ts';
import type { Client } from '../support/client.ts';
import { eventually, keyClient, listenToEveryEvent, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';

export type Received = { to: string[]; mail: ParsedMail; headers: Record<string, string> };

/** The channels' SMTP sink, with what it accepted parsed (mailparser) on demand. */
export type Sink = SmtpSink & { received: () => Promise<Received[]> };

export async function startSink(): Promise<Sink> {
  const sink = await startSmtpSink();
  const parsed = new WeakMap<Buffer, Promise<Received>>();
  const parse = async (raw: Buffer): Promise<Received> => {
    const mail = await simpleParser(raw);
    const to = [mail.to ?? []].flat().flatMap((group) => group.value.map((address) => address.address ?? ''));
    return { to, mail, headers: headerValues(mail.headerLines) };
  };
  const received = () =>
    Promise.all(
      sink.messages.map((raw) => {
        if (!parsed.has(raw)) parsed.set(raw, parse(raw));
        return parsed.get(raw)!;
      }),
    );
  // The channel's pooled connections stay open to the sink; closing waits for them otherwise.
  const close = async () => {
    await closeChannels();
    await sink.close();
  };
  return { ...sink, received, close };
}

/** A sink for the enclosing describe block: started before its tests, closed after them. */
export function suiteSink(): Sink {
  const sink = {} as Sink;
  before(async () => {
    Object.assign(sink, await startSink());
  });
  after(() => sink.close());
  return sink;
}

/**
 * A workspace with an API key for messages and, given a sink, its email channel pointed at it.
 * `listening` (default): an endpoint takes every event type, so the outbox records them all.
 */
export async function messagingWorkspace(sink?: Sink, { listening = true } = {}) {
  const { client: admin, workspaceId } = await workspaceWithAdmin('Acme Shop');
  if (listening) await listenToEveryEvent(admin, workspaceId);
  if (sink) {
    const channel = await admin.put(`/api/workspaces/${workspaceId}/channels/email`, {
      host: '127.0.0.1',
      port: sink.port,
      secure: false,
      fromEmail: 'news@acme.test',
      fromName: 'Acme',
    });
    expect(channel.status, channel.text).to.equal(200);
  }
  const { client } = await keyClient(admin, workspaceId, [
    'messages:read',
    'messages:write',
    'contacts:read',
    'contacts:write',
    'campaigns:read',
    'campaigns:write',
    'events:write',
  ]);
  const base = `/api/workspaces/${workspaceId}`;
  return { admin, client, workspaceId, base };
}

export async function makeContact(client: Client, base: string, fields: Record<string, unknown>) {
  const created = await client.post(`${base}/contacts`, fields);
  expect(created.status, created.text).to.equal(201);
  return created.body.id as string;
}

/** A plain transactional email to the contact; the response of POST …/messages. */
export async function sendHi(client: Client, base: string, contactId: string) {
  const sent = await client.post(`${base}/messages`, {
    contactId,
    channel: 'email',
    subject: 'Hi',
    html: '<p>x</p>',
  });
  expect(sent.status, sent.text).to.equal(202);
  return sent;
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

export async function activeCampaign(client: Client, base: string, eventType: string, steps: unknown[]) {
  const created = await client.post(`${base}/campaigns`, {
    name: `C ${Math.random()}`,
    trigger: { type: 'event', eventType },
    steps,
  });
  expect(created.status, created.text).to.equal(201);
  const activated = await client.post(`${base}/campaigns/${created.body.id}/activate`);
  expect(activated.status, activated.text).to.equal(200);
  return created.body.id as string;
}
