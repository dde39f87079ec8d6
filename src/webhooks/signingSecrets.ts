// Endpoint signing secrets at rest: sealed with the secrets kit (AES-256-GCM under ENCRYPTION_KEY,
// a key id per value), authenticated together with their workspace and endpoint, so a sealed value
// copied onto another endpoint does not open there. The current and the previous secret of one
// endpoint share that context: rotation moves the current one into the previous column in SQL.
//
// Rows written before secrets were sealed kept them in `secret_plaintext`; `sealPlaintextSecrets`
// (run with the migrations) seals and clears them. Until it has run, such a value is still used
// as it is, so an endpoint never reads as unsigned.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import {
  currentKeyRing,
  decryptSecretCached,
  encryptSecret,
  MissingKeyError,
  SecretDecryptionError,
  type SecretStore,
  StoredSecret,
} from '../secrets/index.ts';

/** A stored signing secret: sealed, or (until sealed at migration) the old clear text. */
export const StoredSigningSecret = z.union([StoredSecret, z.string()]);
export type StoredSigningSecret = z.infer<typeof StoredSigningSecret>;

const secretContext = (workspaceId: string, endpointId: string) => `${workspaceId}:webhook:${endpointId}`;

export function sealSigningSecret(workspaceId: string, endpointId: string, plain: string): StoredSecret {
  return encryptSecret(plain, secretContext(workspaceId, endpointId));
}

export function openSigningSecret(
  workspaceId: string,
  endpointId: string,
  stored: StoredSigningSecret,
): string {
  if (typeof stored === 'string') return stored;
  return decryptSecretCached(stored, secretContext(workspaceId, endpointId));
}

/**
 * Secrets ready to sign with, or why there are none: `keyMissing` when this process lacks the key
 * that sealed one (its configuration is at fault, not the endpoint), otherwise a value that fails
 * its integrity check.
 */
export type OpenedSecrets = { secrets: string[]; secretError: string | null; keyMissing: boolean };

export function openLiveSecrets(
  workspaceId: string,
  endpointId: string,
  stored: readonly StoredSigningSecret[],
): OpenedSecrets {
  try {
    return {
      secrets: stored.map((value) => openSigningSecret(workspaceId, endpointId, value)),
      secretError: null,
      keyMissing: false,
    };
  } catch (error) {
    if (!(error instanceof SecretDecryptionError)) throw error;
    return {
      secrets: [],
      secretError: `the signing secret cannot be decrypted: ${error.message}`,
      keyMissing: error instanceof MissingKeyError,
    };
  }
}

/**
 * Every stored secret that signs now, newest first: the current one, and the previous one during
 * its grace period (as jsonb: a sealed object, or a clear-text string not yet sealed).
 */
export const liveStoredSecrets = sql.fragment`
  jsonb_path_query_array(jsonb_build_array(
    coalesce(e.secret_sealed, to_jsonb(e.secret_plaintext)),
    case when e.previous_secret_expires_at > now()
      then coalesce(e.previous_secret_sealed, to_jsonb(e.previous_secret_plaintext)) end
  ), '$[*] ? (@ != null)')
`;

const PlaintextRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  secret_plaintext: z.string().nullable(),
  previous_secret_plaintext: z.string().nullable(),
});

/**
 * Seals the clear-text secrets of up to `limit` endpoints and clears them; returns how many rows
 * it sealed. Rows another transaction holds are left for the next call.
 */
export async function sealPlaintextBatch(db: Db, limit = 200): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx.any(sql.type(PlaintextRow)`
      select id, workspace_id, secret_plaintext, previous_secret_plaintext from webhook_endpoints
      where secret_plaintext is not null or previous_secret_plaintext is not null
      limit ${limit} for update skip locked
    `);
    for (const row of rows) {
      const seal = (plain: string | null) =>
        plain === null ? null : sql.jsonb(sealSigningSecret(row.workspace_id, row.id, plain));
      await tx.query(sql.typeAlias('void')`
        update webhook_endpoints set
          secret_sealed = coalesce(${seal(row.secret_plaintext)}, secret_sealed),
          previous_secret_sealed = coalesce(${seal(row.previous_secret_plaintext)}, previous_secret_sealed),
          secret_plaintext = null, previous_secret_plaintext = null
        where id = ${row.id}
      `);
    }
    return rows.length;
  });
}

/** Seals every clear-text secret left (start-up and migration); returns how many endpoints. */
export async function sealPlaintextSecrets(db: Db): Promise<number> {
  let total = 0;
  for (;;) {
    const sealed = await sealPlaintextBatch(db);
    total += sealed;
    if (sealed === 0) return total;
  }
}

const SealedRow = z.object({
  id: z.string(),
  workspace_id: z.string(),
  secret_sealed: StoredSecret.nullable(),
  previous_secret_sealed: StoredSecret.nullable(),
});

/** Endpoints with a secret sealed under another key than the current one. */
const staleUnder = (keyId: string) => sql.fragment`
  (secret_sealed->>'keyId' <> ${keyId} or previous_secret_sealed->>'keyId' <> ${keyId})
`;

/** Re-seals up to `limit` endpoints' secrets under the current key; returns how many. */
async function resealBatch(db: Db, limit: number): Promise<number> {
  const ring = currentKeyRing();
  return db.transaction(async (tx) => {
    const rows = await tx.any(sql.type(SealedRow)`
      select id, workspace_id, secret_sealed, previous_secret_sealed from webhook_endpoints
      where ${staleUnder(ring.current.id)}
      order by id limit ${limit} for update
    `);
    for (const row of rows) {
      const reseal = (stored: StoredSecret | null) =>
        stored === null
          ? null
          : sql.jsonb(
              sealSigningSecret(
                row.workspace_id,
                row.id,
                openSigningSecret(row.workspace_id, row.id, stored),
              ),
            );
      await tx.query(sql.typeAlias('void')`
        update webhook_endpoints set secret_sealed = ${reseal(row.secret_sealed)},
          previous_secret_sealed = ${reseal(row.previous_secret_sealed)}
        where id = ${row.id}
      `);
    }
    return rows.length;
  });
}

async function countStale(db: Db): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number().int() }))`
    select count(*)::int as count from webhook_endpoints where ${staleUnder(currentKeyRing().current.id)}
  `);
}

export const webhookSecretStore: SecretStore = {
  name: 'webhook_endpoints.secret_sealed',
  countStale,
  resealBatch,
};
