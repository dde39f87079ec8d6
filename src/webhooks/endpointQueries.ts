// SQL for webhook endpoints. Every query but the inbound lookup filters by workspace first; the
// inbound URL carries only the endpoint id, which is global and unguessable (a ULID).
import { z } from 'zod';
import { type Db, sql, type Tx } from '../db/pool.ts';
import type { StoredSecret } from '../secrets/index.ts';
import { StoredSigningSecret } from './signingSecrets.ts';

export const EndpointRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  direction: z.enum(['INBOUND', 'OUTBOUND']),
  url: z.string().nullable(),
  events: z.array(z.string()),
  signature_scheme: z.enum(['hex', 'standard', 'either']),
  /** Sealed (or, before the migration step sealed it, clear text); opened in signingSecrets.ts. */
  secret: StoredSigningSecret.nullable(),
  previous_secret: StoredSigningSecret.nullable(),
  previous_secret_expires_at: z.string().nullable(),
  active: z.boolean(),
  disabled_reason: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type EndpointRow = z.infer<typeof EndpointRow>;
export type SignatureScheme = EndpointRow['signature_scheme'];

const columns = sql.fragment`
  id, workspace_id, name, direction, url, events, signature_scheme,
  coalesce(secret_sealed, to_jsonb(secret_plaintext)) as secret,
  coalesce(previous_secret_sealed, to_jsonb(previous_secret_plaintext)) as previous_secret,
  previous_secret_expires_at,
  active, disabled_reason, created_at, updated_at
`;

export async function insertEndpoint(
  db: Db,
  input: {
    id: string;
    workspaceId: string;
    name: string;
    direction: 'INBOUND' | 'OUTBOUND';
    url: string | null;
    events: readonly string[];
    signatureScheme: SignatureScheme;
    secret: StoredSecret | null;
    active: boolean;
  },
): Promise<EndpointRow> {
  return db.one(sql.type(EndpointRow)`
    insert into webhook_endpoints (id, workspace_id, name, direction, url, events, signature_scheme,
      secret_sealed, active)
    values (${input.id}, ${input.workspaceId}, ${input.name}, ${input.direction}, ${input.url},
            ${sql.array(input.events as string[], 'text')}, ${input.signatureScheme},
            ${input.secret === null ? null : sql.jsonb(input.secret)},
            ${input.active})
    returning ${columns}
  `);
}

const ListedRow = EndpointRow.extend({ delivery_count: z.number().int() });

export async function listEndpointsWithCounts(db: Db, workspaceId: string) {
  return db.any(sql.type(ListedRow)`
    select ${columns},
      (select count(*) from webhook_deliveries d where d.workspace_id = e.workspace_id and d.endpoint_id = e.id)::int as delivery_count
    from webhook_endpoints e
    where workspace_id = ${workspaceId}
    order by created_at, id
  `);
}

export async function findEndpoint(db: Db, workspaceId: string, endpointId: string, lock = false) {
  return db.maybeOne(sql.type(EndpointRow)`
    select ${columns} from webhook_endpoints
    where workspace_id = ${workspaceId} and id = ${endpointId}
    ${lock ? sql.fragment`for update` : sql.fragment``}
  `);
}

/** The inbound route knows only the endpoint id. */
export async function findEndpointById(db: Db, endpointId: string) {
  return db.maybeOne(
    sql.type(EndpointRow)`select ${columns} from webhook_endpoints where id = ${endpointId}`,
  );
}

export type EndpointChanges = {
  name?: string;
  url?: string;
  events?: readonly string[];
  signatureScheme?: SignatureScheme;
  active?: boolean;
};

export async function updateEndpoint(
  db: Db,
  workspaceId: string,
  endpointId: string,
  changes: EndpointChanges,
) {
  const sets = [sql.fragment`updated_at = now()`];
  if (changes.name !== undefined) sets.push(sql.fragment`name = ${changes.name}`);
  if (changes.url !== undefined) sets.push(sql.fragment`url = ${changes.url}`);
  if (changes.events !== undefined)
    sets.push(sql.fragment`events = ${sql.array(changes.events as string[], 'text')}`);
  if (changes.signatureScheme !== undefined)
    sets.push(sql.fragment`signature_scheme = ${changes.signatureScheme}`);
  if (changes.active !== undefined) {
    sets.push(sql.fragment`active = ${changes.active}`);
    // Re-activation starts a clean slate: the old reason and failure streak no longer apply, and
    // the endpoint receives the events emitted from now on, none recorded while it was disabled.
    if (changes.active)
      sets.push(sql.fragment`disabled_reason = null, failing_since = null,
        receives_since = case when active then receives_since else now() end`);
  }
  return db.maybeOne(sql.type(EndpointRow)`
    update webhook_endpoints set ${sql.join(sets, sql.fragment`, `)}
    where workspace_id = ${workspaceId} and id = ${endpointId}
    returning ${columns}
  `);
}

/**
 * Deletes an endpoint with its messages, their queued attempts and its delivery records. In that
 * order and as separate statements, each with a snapshot taken after the one before: the
 * endpoint's delete waits for a fan-out holding it (`for key share`), so the messages that fan-out
 * wrote are visible to the next statement; deleting the messages waits for a retry being scheduled
 * on one (its row lock), so that retry's attempt is visible to the next; deleting the attempts waits
 * for those a recording holds, so the delivery records it wrote are visible to the last. No foreign
 * key cascades any of these (sql/0058, sql/0064). Run inside a transaction.
 */
export async function deleteEndpoint(tx: Tx, workspaceId: string, endpointId: string): Promise<boolean> {
  const result = await tx.query(sql.typeAlias('id')`
    delete from webhook_endpoints where workspace_id = ${workspaceId} and id = ${endpointId} returning id
  `);
  if (result.rowCount === 0) return false;
  await tx.query(sql.typeAlias('void')`
    delete from webhook_messages where workspace_id = ${workspaceId} and endpoint_id = ${endpointId}
  `);
  await tx.query(sql.typeAlias('void')`
    delete from webhook_attempts where workspace_id = ${workspaceId} and endpoint_id = ${endpointId}
  `);
  await tx.query(sql.typeAlias('void')`
    delete from webhook_deliveries where workspace_id = ${workspaceId} and endpoint_id = ${endpointId}
  `);
  return true;
}

/** The current secret becomes the previous one, which keeps signing for `graceSeconds`. */
export async function rotateEndpointSecret(
  db: Db,
  workspaceId: string,
  endpointId: string,
  secret: StoredSecret,
  graceSeconds: number,
) {
  return db.maybeOne(sql.type(EndpointRow)`
    update webhook_endpoints set
      previous_secret_sealed = secret_sealed,
      previous_secret_plaintext = secret_plaintext,
      previous_secret_expires_at = case when secret_sealed is null and secret_plaintext is null then null
                                        else now() + ${graceSeconds} * interval '1 second' end,
      secret_sealed = ${sql.jsonb(secret)},
      secret_plaintext = null,
      updated_at = now()
    where workspace_id = ${workspaceId} and id = ${endpointId}
    returning ${columns}
  `);
}
