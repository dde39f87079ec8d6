// Secrets at rest (SMTP passwords, DKIM keys, later push and bot credentials): AES-256-GCM under
// ENCRYPTION_KEY. Each stored value names the key that sealed it (`keyId`, a fingerprint of the
// key, never the key), so the key can be rotated: put the new key first in ENCRYPTION_KEY, keep
// the old one after it until every row has been re-sealed. A platform kit: it knows no feature.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../log.ts';

/** What a table stores for one secret: every part base64, none of it the secret in clear. */
export const StoredSecret = z.object({
  keyId: z.string(),
  iv: z.string(),
  tag: z.string(),
  ciphertext: z.string(),
});
export type StoredSecret = z.infer<typeof StoredSecret>;

export type KeyRing = { current: { id: string; key: Buffer }; byId: Map<string, Buffer> };

export class SecretDecryptionError extends Error {}

/**
 * The key that sealed a value is not in this process's ENCRYPTION_KEY: the process is configured
 * wrongly (a key removed too soon, or a worker started with another key), not the value. Work that
 * needs the secret waits and tries again; it never fails for good because of this.
 */
export class MissingKeyError extends SecretDecryptionError {
  constructor(keyId: string) {
    super(`no ENCRYPTION_KEY with id ${keyId} is configured in this process`);
  }
}

/** At most one report per problem in this long: a worker retries every such job, each would say it. */
const MISSING_KEY_REPORT_MS = 60_000;
const reportedAt = new Map<string, number>();

/**
 * Logs, as an error an operator must act on, that this process lacks a key (`problem`: the
 * MissingKeyError's message, or a text holding it); once a minute per problem.
 */
export function reportMissingKey(log: Logger, problem: string, what: Record<string, unknown>): void {
  const now = Date.now();
  if ((reportedAt.get(problem) ?? 0) > now - MISSING_KEY_REPORT_MS) return;
  reportedAt.set(problem, now);
  log.error(
    what,
    `${problem}: the work that needs it waits and is retried. Give this process the ENCRYPTION_KEY ` +
      'that stored the secret (every web and worker process of one database needs the same keys).',
  );
}

const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** In production the key must be configured (config.ts refuses to start without it); elsewhere one is generated and kept. */
function configuredKeys(settings: Config): Buffer[] {
  if (settings.ENCRYPTION_KEY) return settings.ENCRYPTION_KEY;
  const file = path.join(settings.DATA_DIR, 'encryption-key');
  if (existsSync(file)) return [Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')];
  mkdirSync(settings.DATA_DIR, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64'), { mode: 0o600 });
  return [key];
}

export function keyRing(settings: Config): KeyRing {
  const keys = configuredKeys(settings);
  const byId = new Map(keys.map((key) => [keyId(key), key] as const));
  return { current: { id: keyId(keys[0]), key: keys[0] }, byId };
}

let processRing: KeyRing | undefined;

/**
 * Installs the process's keys from the configuration the composition parsed (createContext,
 * migrateAll, the CLI's withDatabase). The first install holds: sealed rows must keep opening.
 */
export function installKeyRing(settings: Config): KeyRing {
  processRing ??= keyRing(settings);
  return processRing;
}

function defaultRing(): KeyRing {
  if (!processRing) {
    throw new Error(
      'no key ring installed: the start-up calls installKeyRing(config) before secrets are used',
    );
  }
  return processRing;
}

/**
 * Seals a secret. `context` (e.g. "ws_…:email:password") is authenticated but not stored: a value
 * copied into another row or field does not decrypt there.
 */
export function encryptSecret(plain: string, context = '', ring: KeyRing = defaultRing()): StoredSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', ring.current.key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return {
    keyId: ring.current.id,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

/** Opens a sealed secret; throws SecretDecryptionError (naming the key id only) when it cannot. */
export function decryptSecret(stored: StoredSecret, context = '', ring: KeyRing = defaultRing()): string {
  const key = ring.byId.get(stored.keyId);
  if (!key) throw new MissingKeyError(stored.keyId);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(stored.iv, 'base64'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(stored.tag, 'base64'));
    return Buffer.concat([
      decipher.update(Buffer.from(stored.ciphertext, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SecretDecryptionError(`a secret sealed under key ${stored.keyId} failed its integrity check`);
  }
}

/** Whether a stored secret was sealed under a key other than the current one (for re-sealing on rotation). */
export function needsResealing(stored: StoredSecret, ring: KeyRing = defaultRing()): boolean {
  return stored.keyId !== ring.current.id;
}

/** How long an opened secret stays in memory; short, so a removed key or a rotated row soon counts. */
const OPENED_TTL_MS = 5 * 60 * 1000;
/** Cleared wholesale past this, so rotated secrets do not pile up. */
const OPENED_MAX = 10_000;
const opened = new Map<string, { plain: string; until: number }>();

/**
 * decryptSecret with a brief memory: signing every webhook attempt must not pay a decryption each
 * time. Keyed by the sealed value and its context together, so a value copied to another row or
 * field still fails there; a key missing from the ring fails as soon as the entry expires.
 */
export function decryptSecretCached(
  stored: StoredSecret,
  context = '',
  ring: KeyRing = defaultRing(),
): string {
  const cacheKey = `${stored.keyId}.${stored.iv}.${stored.tag}.${stored.ciphertext}\u0000${context}`;
  const now = Date.now();
  const hit = opened.get(cacheKey);
  if (hit && hit.until > now) return hit.plain;
  const plain = decryptSecret(stored, context, ring);
  if (opened.size >= OPENED_MAX) opened.clear();
  opened.set(cacheKey, { plain, until: now + OPENED_TTL_MS });
  return plain;
}

/** The ring of this process (for re-sealing under the current key). */
export function currentKeyRing(): KeyRing {
  return defaultRing();
}

/**
 * A table holding sealed secrets, as `switchboard secrets rotate-key` sees it. Each feature that
 * stores secrets lists it in its feature's `secretStores`; src/app/secretStores.ts rotates them all.
 */
export type SecretStore = {
  /** The table (and column) it covers, for progress output. */
  name: string;
  /** Rows holding a value sealed under another key than the current one. */
  countStale: (db: Db) => Promise<number>;
  /** Re-seals up to `limit` such rows under the current key, in one short transaction; returns how many. */
  resealBatch: (db: Db, limit: number) => Promise<number>;
};

/** The same secret sealed again under the current key (key rotation); the context stays. */
export function resealSecret(
  stored: StoredSecret,
  context = '',
  ring: KeyRing = defaultRing(),
): StoredSecret {
  return encryptSecret(decryptSecret(stored, context, ring), context, ring);
}
