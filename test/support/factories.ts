// Plain async factories: every test builds its own users, workspaces and keys through the API.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Client } from './client.ts';

let counter = 0;

export function uniqueEmail(label = 'user'): string {
  counter++;
  return `${label}.${Date.now().toString(36)}.${counter}.${Math.random().toString(36).slice(2, 8)}@example.com`;
}

export const PASSWORD = 'correct horse battery';

export async function signedInUser(name = 'Test User') {
  const client = new Client();
  const email = uniqueEmail();
  const registered = await client.post('/api/auth/register', { name, email, password: PASSWORD });
  expect(registered.status, registered.text).to.equal(201);
  const signedIn = await client.post('/api/auth/signin', { email, password: PASSWORD });
  expect(signedIn.status, signedIn.text).to.equal(200);
  return { client, user: registered.body as { id: string; name: string; email: string; createdAt: string } };
}

/** A signed-in ADMIN and their new workspace. */
export async function workspaceWithAdmin(name = 'Test Workspace') {
  const { client, user } = await signedInUser('Admin');
  const created = await client.post('/api/workspaces', { name });
  expect(created.status, created.text).to.equal(201);
  return { client, user, workspaceId: created.body.id as string };
}

/** Creates an API key with these scopes and returns a client that sends it as a Bearer token. */
export async function keyClient(admin: Client, workspaceId: string, scopes: string[]) {
  const created = await admin.post(`/api/workspaces/${workspaceId}/keys`, { name: 'test key', scopes });
  expect(created.status, created.text).to.equal(201);
  return {
    client: new Client(created.body.key),
    key: created.body.key as string,
    keyId: created.body.id as string,
  };
}

/** Polls `check` until it returns a truthy value (for work done by the worker); never sleeps blindly. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${last}` : ''}`);
}

export function expectProblem(
  response: { status: number; headers: Headers; body: unknown; text: string },
  status: number,
) {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
  const body = response.body as { type: string; title: string; status: number; detail: string };
  expect(body.status).to.equal(status);
  expect(body.title).to.be.a('string');
  expect(body.detail).to.be.a('string');
  return body;
}

let listener: Promise<string> | undefined;

/** A local receiver that takes every webhook with 204, started once and never holding the process open. */
function listenerUrl(): Promise<string> {
  listener ??= new Promise((resolve) => {
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    receiver.listen(0, '127.0.0.1', () => {
      receiver.unref();
      resolve(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/listener`);
    });
  });
  return listener;
}

/**
 * An endpoint subscribed to every type, so the workspace's outgoing events are recorded: the
 * outbox keeps only the events some endpoint listens to.
 */
export async function listenToEveryEvent(admin: Client, workspaceId: string): Promise<void> {
  const created = await admin.post(`/api/workspaces/${workspaceId}/webhooks`, {
    name: 'Every event',
    url: await listenerUrl(),
  });
  expect(created.status, created.text).to.equal(201);
}
