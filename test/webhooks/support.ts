// Helpers for the webhook tests: a real local HTTP receiver that records every request and
// answers as told, endpoints made through the API, and events caused through the API.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Client } from '../support/client.ts';
import { eventually, workspaceWithAdmin } from '../support/factories.ts';

export type Received = { headers: IncomingHttpHeaders; body: string; path: string; at: number };
export type Answer = { status?: number; headers?: Record<string, string>; body?: string; delayMs?: number };

export type Receiver = {
  url: string;
  port: number;
  requests: Received[];
  /** Decides the answer to the nth request (0-based); 200 by default. */
  answer: (request: Received, index: number) => Answer;
  close: () => Promise<void>;
};

export async function startReceiver(answer: Receiver['answer'] = () => ({})): Promise<Receiver> {
  const requests: Received[] = [];
  const receiver = { requests, answer } as Receiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '',
        at: Date.now(),
      };
      const index = requests.push(received) - 1;
      const reply = receiver.answer(received, index);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? 'ok');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A fresh receiver for each test of the enclosing suite, closed after it. */
export function useReceiver(): () => Receiver {
  let current: Receiver | undefined;
  beforeEach(async () => {
    current = await startReceiver();
  });
  afterEach(async () => {
    await current?.close();
  });
  return () => current as Receiver;
}

export const webhooksPath = (workspaceId: string) => `/api/workspaces/${workspaceId}/webhooks`;

export async function createEndpoint(admin: Client, workspaceId: string, body: Record<string, unknown>) {
  const created = await admin.post(webhooksPath(workspaceId), body);
  expect(created.status, created.text).to.equal(201);
  return created.body as {
    id: string;
    secret: string;
    url: string | null;
    events: string[];
    active: boolean;
  };
}

/** Creates a contact through the API: one `contact.created` event. */
export async function createContact(
  admin: Client,
  workspaceId: string,
  email = `c${Math.random()}@example.com`,
) {
  const created = await admin.post(`/api/workspaces/${workspaceId}/contacts`, { email, firstName: 'Ada' });
  expect(created.status, created.text).to.equal(201);
  return created.body as { id: string; email: string };
}

/**
 * A new workspace whose one endpoint, on `url`, subscribes to contact.created; then `contacts`
 * contacts are created through the API, one event each.
 */
export async function subscribedWorkspace(url: string, contacts = 1) {
  const { client, workspaceId } = await workspaceWithAdmin();
  const endpoint = await createEndpoint(client, workspaceId, { url, events: ['contact.created'] });
  for (let i = 0; i < contacts; i++) await createContact(client, workspaceId);
  return { client, workspaceId, endpoint };
}

export type DeliveryRecord = {
  id: string;
  endpointId: string;
  messageId: string | null;
  direction: 'INBOUND' | 'OUTBOUND';
  event: string | null;
  attempt: number;
  trigger: 'scheduled' | 'manual' | null;
  url: string | null;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  requestBytes?: number | null;
  success: boolean;
  createdAt: string;
};

export async function deliveries(admin: Client, workspaceId: string, query = ''): Promise<DeliveryRecord[]> {
  const listed = await admin.get(`${webhooksPath(workspaceId)}/deliveries?limit=100${query}`);
  expect(listed.status, listed.text).to.equal(200);
  return listed.body.data;
}

/** Waits until the endpoint has at least `count` delivery records; returns them oldest first. */
export async function waitForDeliveries(
  admin: Client,
  workspaceId: string,
  endpointId: string,
  count: number,
) {
  return eventually(async () => {
    const found = await deliveries(admin, workspaceId, `&endpointId=${endpointId}`);
    return found.length >= count ? found.reverse() : null;
  });
}
