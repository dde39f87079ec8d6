// Shared set-up for contact, event and campaign tests: a workspace, its ADMIN and paths in it.
import { expect } from 'chai';
import pg from 'pg';
import { z } from 'zod';
import { sql, type Tx } from '../../src/db/pool.ts';
import type { Client } from '../support/client.ts';
import { keyClient, listenToEveryEvent, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';

/** `listening` (default): an endpoint takes every event type, so the outbox records them all. */
export async function workspace({ listening = true } = {}) {
  const { client, workspaceId } = await workspaceWithAdmin();
  if (listening) await listenToEveryEvent(client, workspaceId);
  const base = `/api/workspaces/${workspaceId}`;
  return {
    admin: client,
    workspaceId,
    base,
    /** A client with an API key holding exactly these scopes. */
    withScopes: async (scopes: string[]) => (await keyClient(client, workspaceId, scopes)).client,
  };
}

export async function track(client: Client, base: string, event: Record<string, unknown>) {
  const response = await client.post(`${base}/events`, event);
  expect(response.status, response.text).to.equal(201);
  return response.body;
}

export async function createContact(client: Client, base: string, contact: Record<string, unknown>) {
  const response = await client.post(`${base}/contacts`, contact);
  expect(response.status, response.text).to.equal(201);
  return response.body;
}

/** The data of the outgoing events of one type, oldest first. */
export async function outgoing(workspaceId: string, type: string) {
  return server().context.db.anyFirst(sql.unsafe`
    select data from outgoing_events where workspace_id = ${workspaceId} and type = ${type} order by id
  `);
}

/**
 * Runs `work` while another transaction has run `hold` and stays open; once `work` settles that
 * transaction rolls back, so what `hold` wrote is never kept, or, given `end`, runs it and commits.
 */
export async function whileHeld<T>(
  hold: (tx: Tx) => Promise<unknown>,
  work: () => Promise<T>,
  end?: (tx: Tx) => Promise<unknown>,
): Promise<T> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held!: () => void;
  const heldNow = new Promise<void>((resolve) => {
    held = resolve;
  });
  const holder = server().context.db.transaction(async (tx) => {
    await hold(tx);
    held();
    await released;
    if (!end) throw new Error('rolled back on purpose');
    await end(tx);
  });
  // A failing `hold` rejects the holder before `held`: surface it instead of waiting forever.
  await Promise.race([heldNow, holder]);
  try {
    return await work();
  } finally {
    release();
    await (end ? holder : holder.catch(() => {}));
  }
}

/** Runs `work` while another transaction (a batch import, say) holds the contact's row lock. */
export function whileLocked<T>(contactId: string, work: () => Promise<T>): Promise<T> {
  return whileHeld(
    (tx) => tx.query(sql.unsafe`select id from contacts where id = ${contactId} for update`),
    work,
  );
}

/**
 * Waits until some session waits for a lock (an ingest or import, for a row the test holds). Asked
 * through the pool: inside the holder's transaction pg_stat_activity shows its first snapshot only.
 */
export async function waitForLockWaiter() {
  const db = server().context.db;
  for (;;) {
    const waiting = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
      select count(*)::int as n from pg_stat_activity
      where wait_event_type = 'Lock' and datname = current_database()
    `);
    if (waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Events of the workspace whose contact is gone. */
export async function orphanEvents(workspaceId: string) {
  return server().context.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from events e
    where e.workspace_id = ${workspaceId} and e.contact_id is not null
      and not exists (select 1 from contacts c where c.workspace_id = e.workspace_id and c.id = e.contact_id)
  `);
}

/**
 * Erases the contact as DELETE /contacts/{id} does (its lock, its events, then the contact), with
 * `during` started after the events went and given until it waits for a lock (or ends) before
 * the contact goes; returns what `during` gave.
 */
export async function eraseAround<T>(workspaceId: string, contactId: string, during: () => Promise<T>) {
  const eraser = new pg.Client({ connectionString: server().databaseUrl });
  await eraser.connect();
  try {
    await eraser.query('begin');
    await eraser.query('select id from contacts where id = $1 for update', [contactId]);
    await eraser.query('delete from events where workspace_id = $1 and contact_id = $2', [
      workspaceId,
      contactId,
    ]);
    const work = during();
    await Promise.race([waitForLockWaiter(), work]);
    await eraser.query('delete from contacts where workspace_id = $1 and id = $2', [workspaceId, contactId]);
    await eraser.query('commit');
    return await work;
  } finally {
    await eraser.end();
  }
}
