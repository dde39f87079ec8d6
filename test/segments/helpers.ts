// Shared set-up for segment and scoring tests: segments created through the API, their members
// by label, outgoing events, and direct SQL for what the API deliberately cannot do (move a
// contact's creation time, age an event, set a score).
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import type { Client } from '../support/client.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';

const StatusRow = z.object({ status: z.string() });

/**
 * Waits for the segments.compute job to finish the segment (read from the database, so that a
 * client without segments:read can wait too); returns the segment as the client then reads it.
 */
export async function whenReady(client: Client, base: string, segmentId: string) {
  await eventually(async () => {
    const row = await server().context.db.maybeOne(sql.type(StatusRow)`
      select status from segments where id = ${segmentId}
    `);
    return row?.status === 'ready';
  }, 30_000);
  const response = await client.get(`${base}/segments/${segmentId}`);
  return response.status === 200 ? response.body : { id: segmentId };
}

/** A segment created through the API, once its members are computed. */
export async function createSegment(client: Client, base: string, rules: unknown, name = 'Segment') {
  const response = await client.post(`${base}/segments`, { name, rules });
  expect(response.status, response.text).to.equal(201);
  expect(response.body.status).to.equal('computing');
  return whenReady(client, base, response.body.id);
}

export async function memberIds(client: Client, base: string, segmentId: string): Promise<string[]> {
  const response = await client.get(`${base}/segments/${segmentId}/contacts?limit=200`);
  expect(response.status, response.text).to.equal(200);
  return response.body.data.map((contact: { id: string }) => contact.id).sort();
}

/** Members of a new segment with these rules, as the labels of `contacts`. */
export async function membersOf(
  client: Client,
  base: string,
  contacts: Record<string, string>,
  rules: unknown,
) {
  const segment = await createSegment(client, base, rules);
  const labels = Object.fromEntries(Object.entries(contacts).map(([label, id]) => [id, label]));
  return (await memberIds(client, base, segment.id)).map((id) => labels[id]).sort();
}

const OutgoingRow = z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) });

export async function outgoingEvents(workspaceId: string, type: string) {
  const rows = await server().context.db.any(sql.type(OutgoingRow)`
    select type, data from outgoing_events where workspace_id = ${workspaceId} and type = ${type} order by id
  `);
  return rows.map((row) => row.data);
}

export async function setCreatedAt(contactId: string, at: string) {
  await server().context.db.query(sql.typeAlias('void')`
    update contacts set created_at = ${at}::timestamptz where id = ${contactId}
  `);
}

export async function setLeadScore(contactId: string, score: number) {
  await server().context.db.query(
    sql.typeAlias('void')`update contacts set lead_score = ${score} where id = ${contactId}`,
  );
}

/** Moves a contact's events of this type back in time, as if they had happened earlier. */
export async function ageEvents(contactId: string, type: string, by: string) {
  await server().context.db.query(sql.typeAlias('void')`
    update events set occurred_at = occurred_at - ${by}::interval where contact_id = ${contactId} and type = ${type}
  `);
}

/** As if the workspace's time-window segments were last refreshed `by` earlier than they were. */
export async function ageRefreshes(workspaceId: string, by: string) {
  await server().context.db.query(sql.typeAlias('void')`
    update segments set refreshed_through = refreshed_through - ${by}::interval
    where workspace_id = ${workspaceId} and has_time_window
  `);
}

export function errorPaths(response: { body: { errors?: { path: string }[] } }): string[] {
  return (response.body.errors ?? []).map((error) => error.path);
}

export const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
