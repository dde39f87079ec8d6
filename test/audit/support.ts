// Reading the audit log in tests: through the API (as an ADMIN), and as stored (to search the raw
// JSON for a secret's value).
import { expect } from 'chai';
import { z } from 'zod';
import type { Client } from '../support/client.ts';
import { sql, testDb } from '../support/helpers.ts';

export type Entry = {
  id: string;
  action: string;
  target: { type: string; id: string };
  actor: { type: string; id: string | null; name: string | null };
  origin: { ip: string | null; userAgent: string | null };
  // biome-ignore lint/suspicious/noExplicitAny: tests read the recorded settings freely
  before: any;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the recorded settings freely
  after: any;
  createdAt: string;
};

export const auditPath = (workspaceId: string) => `/api/workspaces/${workspaceId}/audit`;

export async function auditOf(admin: Client, workspaceId: string, query: Record<string, string> = {}) {
  const response = await admin.get(`${auditPath(workspaceId)}?${new URLSearchParams(query)}`);
  expect(response.status, response.text).to.equal(200);
  return response.body as Entry[];
}

/** The one entry of this action (it fails when there is none or more than one). */
export async function onlyEntry(admin: Client, workspaceId: string, action: string): Promise<Entry> {
  const entries = (await auditOf(admin, workspaceId, { action })).filter((entry) => entry.action === action);
  expect(
    entries.map((entry) => entry.action),
    `entries of ${action}`,
  ).to.deep.equal([action]);
  return entries[0];
}

/** Every stored entry of the workspace as raw JSON text, for searching secrets in it. */
export async function storedText(workspaceId: string): Promise<string> {
  const rows = await testDb().anyFirst(sql.type(z.object({ row: z.string() }))`
    select row_to_json(a)::text as row from audit_entries a where workspace_id = ${workspaceId}
  `);
  return rows.join('\n');
}

export async function entryCount(workspaceId: string): Promise<number> {
  return testDb().oneFirst(sql.type(z.object({ count: z.number() }))`
    select count(*)::int as count from audit_entries where workspace_id = ${workspaceId}
  `);
}

/** The entry was made by this signed-in user over HTTP. */
export function expectUser(entry: Entry, user: { id: string; email: string }) {
  expect(entry.actor).to.deep.equal({ type: 'user', id: user.id, name: user.email });
  expect(entry.origin.ip).to.be.a('string').and.not.equal('');
  expect(entry.origin.userAgent).to.be.a('string');
}
