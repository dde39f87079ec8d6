// Signing secrets at rest: no secret readable in the raw rows, rows from before sealing sealed when
// the migrations run, and `switchboard secrets rotate-key` moving every secret to a new key.
import { createHmac } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { z } from 'zod';
import { migrateAll } from '../../src/app/runtime.ts';
import { config, parseConfig } from '../../src/config.ts';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrate.ts';
import { createDatabasePool, sql } from '../../src/db/pool.ts';
import {
  currentKeyRing,
  decryptSecret,
  encryptSecret,
  keyRing,
  type StoredSecret,
} from '../../src/secrets/index.ts';
import { WEBHOOKS_CHANNEL } from '../../src/webhooks/deliveryQueries.ts';
import { runCli, startCli } from '../support/cli.ts';
import { Client } from '../support/client.ts';
import { eventually, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { dropScratchDatabase, scratchDatabase } from '../support/spawnedWorker.ts';
import { createContact, createEndpoint, useReceiver, waitForDeliveries, webhooksPath } from './support.ts';

/** Every column of every row of a table, as PostgreSQL stores it, in one text. */
async function rawRows(table: string, url = server().databaseUrl): Promise<string> {
  const db = await createDatabasePool(url, { maxPoolSize: 1 });
  try {
    const rows = await db.anyFirst(
      sql.unsafe`select row_to_json(t)::text as row from ${sql.identifier([table])} t`,
    );
    return rows.join('\n');
  } finally {
    await db.end();
  }
}

/** A fresh database migrated up to (not including) `version`. */
async function databaseBefore(version: number) {
  const name = `sealing_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  await server().context.db.query(sql.unsafe`create database ${sql.identifier([name])}`);
  const url = new URL(server().databaseUrl);
  url.pathname = `/${name}`;
  const older = mkdtempSync(path.join(tmpdir(), 'switchboard-sql-'));
  for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => Number(f.slice(0, 4)) < version))
    copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(older, file));
  await migrate(url.toString(), older);
  return { name, url: url.toString() };
}

/** The key the test server encrypts with (generated under its DATA_DIR on first use). */
const serverKey = () => currentKeyRing().current.key.toString('base64');

describe('webhook signing secrets at rest', () => {
  it('keeps no secret in clear text: endpoints (also after a rotation) and channel credentials', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const outbound = await createEndpoint(admin, workspaceId, { url: 'https://example.com/hook' });
    const inbound = await createEndpoint(admin, workspaceId, { direction: 'INBOUND' });
    const rotated = await admin.post(`${webhooksPath(workspaceId)}/${outbound.id}/rotate-secret`);
    expect(rotated.status, rotated.text).to.equal(200);
    const smtpPassword = 'smtp-password-in-clear?';
    const put = await admin.put(`/api/workspaces/${workspaceId}/channels/email`, {
      host: 'smtp.example.com',
      username: 'relay',
      password: smtpPassword,
      fromEmail: 'news@acme.test',
    });
    expect(put.status, put.text).to.equal(200);

    const raw = (await rawRows('webhook_endpoints')) + (await rawRows('channel_configs'));
    for (const secret of [outbound.secret, inbound.secret, rotated.body.secret, smtpPassword]) {
      expect(raw).not.to.contain(secret);
      // Nor the key material of a whsec_ secret (the part Standard Webhooks signs with).
      expect(raw).not.to.contain(secret.replace(/^whsec_/, ''));
    }
    const row = JSON.parse(
      (await rawRows('webhook_endpoints')).split('\n').find((line) => line.includes(outbound.id)) as string,
    );
    expect(row).to.include({ secret_plaintext: null, previous_secret_plaintext: null });
    expect(Object.keys(row.secret_sealed)).to.have.members(['keyId', 'iv', 'tag', 'ciphertext']);
    expect(Object.keys(row.previous_secret_sealed)).to.have.members(['keyId', 'iv', 'tag', 'ciphertext']);
  });

  it('seals the clear-text secrets of existing endpoints when the migrations run, to the same secrets', async () => {
    const database = await databaseBefore(26);
    const db = await createDatabasePool(database.url, { maxPoolSize: 1 });
    try {
      await db.query(sql.unsafe`insert into workspaces (id, name) values ('ws_old', 'Old')`);
      await db.query(sql.unsafe`
        insert into webhook_endpoints (workspace_id, id, name, direction, url, secret, previous_secret,
          previous_secret_expires_at)
        values ('ws_old', 'whe_old', 'old', 'OUTBOUND', 'https://example.com', 'whsec_b2xkLXNlY3JldA==',
          'whsec_cHJldmlvdXM=', now() + interval '1 hour')`);
      await migrateAll(database.url, config());
      const raw = await rawRows('webhook_endpoints', database.url);
      expect(raw).not.to.contain('b2xkLXNlY3JldA').and.not.to.contain('cHJldmlvdXM');
      const row = JSON.parse(raw);
      expect(row).to.include({ secret_plaintext: null, previous_secret_plaintext: null });
      const ring = keyRing(parseConfig({ ENCRYPTION_KEY: serverKey() }));
      const context = 'ws_old:webhook:whe_old';
      expect(decryptSecret(row.secret_sealed, context, ring)).to.equal('whsec_b2xkLXNlY3JldA==');
      expect(decryptSecret(row.previous_secret_sealed, context, ring)).to.equal('whsec_cHJldmlvdXM=');
      await migrateAll(database.url, config()); // again: nothing left to seal, nothing changes
      expect(await rawRows('webhook_endpoints', database.url)).to.equal(raw);
    } finally {
      await db.end();
      await dropScratchDatabase(database.name);
    }
  });
});

describe('a signing secret that cannot be decrypted', () => {
  it('refuses the inbound request (never accepts it unsigned) and names the key id only', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(admin, workspaceId, { direction: 'INBOUND' });
    // As if the key that sealed it had been removed from ENCRYPTION_KEY.
    await server().context.db.query(sql.unsafe`
      update webhook_endpoints set secret_sealed = jsonb_set(secret_sealed, '{keyId}', '"0000000000000000"')
      where id = ${endpoint.id}`);
    const body = JSON.stringify({ type: 'signup' });
    const signature = createHmac('sha256', endpoint.secret).update(body).digest('hex');
    const refused = await new Client().request('POST', `/api/webhooks/inbound/${endpoint.id}`, {
      body,
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
    });
    expect(refused.status, refused.text).to.equal(401);
    expect(refused.body.detail).to.contain('cannot be read');
    const unsigned = await new Client().request('POST', `/api/webhooks/inbound/${endpoint.id}`, {
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).to.equal(401);
  });

  it('keeps the key out of configuration errors and decryption errors', () => {
    const shortKey = Buffer.alloc(31, 5).toString('base64');
    expect(() => parseConfig({ ENCRYPTION_KEY: shortKey })).to.throw(/ENCRYPTION_KEY: must be 32 bytes/);
    try {
      parseConfig({ ENCRYPTION_KEY: shortKey });
    } catch (error) {
      expect(String(error)).not.to.contain(shortKey);
    }
    const key = Buffer.alloc(32, 6).toString('base64');
    const ring = keyRing(parseConfig({ ENCRYPTION_KEY: key }));
    const sealed = encryptSecret('s', 'a', ring);
    try {
      decryptSecret(sealed, 'b', ring);
      expect.fail('opened with the wrong context');
    } catch (error) {
      expect(String(error)).to.contain(sealed.keyId).and.not.to.contain(key);
    }
  });
});

describe('an outbound delivery this worker cannot sign (a key it lacks)', () => {
  const receiver = useReceiver();

  const attemptRow = z.object({ schedule_index: z.number(), wait_s: z.number() });
  const stateRow = z.object({ status: z.string(), active: z.boolean(), failing: z.boolean() });

  it("is retried at the same step of the schedule, no failure of the endpoint's, and sent once the key is back", async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(admin, workspaceId, {
      url: receiver().url,
      events: ['contact.created'],
    });
    const db = server().context.db;
    const realKeyId = await db.oneFirst(sql.type(z.object({ k: z.string() }))`
      select secret_sealed->>'keyId' as k from webhook_endpoints where id = ${endpoint.id}`);
    const setKeyId = (keyId: string) =>
      db.query(sql.unsafe`
        update webhook_endpoints set secret_sealed = jsonb_set(secret_sealed, '{keyId}', to_jsonb(${keyId}::text))
        where id = ${endpoint.id}`);
    await setKeyId('0000000000000000');
    await createContact(admin, workspaceId);

    const [record] = await waitForDeliveries(admin, workspaceId, endpoint.id, 1);
    expect(record.success).to.equal(false);
    expect(record.error).to.contain(
      'no ENCRYPTION_KEY with id 0000000000000000 is configured in this process',
    );
    // The test schedule (0,1,2 s) would retry at step 1 in a second and fail the message at step 3.
    const next = await db.one(sql.type(attemptRow)`
      select schedule_index, extract(epoch from due_at - now())::float8 as wait_s
      from webhook_attempts where endpoint_id = ${endpoint.id}`);
    expect(next.schedule_index).to.equal(0);
    expect(next.wait_s).to.be.above(50);
    const state = await db.one(sql.type(stateRow)`
      select m.status, e.active, e.failing_since is not null as failing
      from webhook_messages m join webhook_endpoints e on e.id = m.endpoint_id where e.id = ${endpoint.id}`);
    expect(state).to.deep.equal({ status: 'pending', active: true, failing: false });

    // The key back, and the retry made due now: it signs and is delivered.
    await setKeyId(realKeyId);
    await db.query(sql.unsafe`update webhook_attempts set due_at = now() where endpoint_id = ${endpoint.id}`);
    await db.query(sql.unsafe`select pg_notify(${WEBHOOKS_CHANNEL}, '')`);
    await eventually(async () => receiver().requests.length === 1);
    const delivered = await waitForDeliveries(admin, workspaceId, endpoint.id, 2);
    expect(delivered[1].success).to.equal(true);
  });
});

describe('switchboard secrets rotate-key', () => {
  const NEW_KEY = Buffer.alloc(32, 9).toString('base64');
  const ENDPOINTS = 25;

  it('re-encrypts every secret under the new key in batches, resumes after a kill, and the old key can go', async function () {
    this.timeout(90_000); // two CLI processes, on a shared machine
    const database = await scratchDatabase();
    const db = await createDatabasePool(database.url, { maxPoolSize: 1 });
    try {
      const old = keyRing(parseConfig({ ENCRYPTION_KEY: serverKey() }));
      await db.query(sql.unsafe`insert into workspaces (id, name) values ('ws_rot', 'Rotation')`);
      for (let i = 0; i < ENDPOINTS; i++) {
        const id = `whe_rot${String(i).padStart(3, '0')}`;
        const sealed = encryptSecret(`whsec_secret${i}`, `ws_rot:webhook:${id}`, old);
        await db.query(sql.unsafe`
          insert into webhook_endpoints (workspace_id, id, name, direction, url, secret_sealed)
          values ('ws_rot', ${id}, 'r', 'OUTBOUND', 'https://example.com', ${sql.jsonb(sealed)})`);
      }
      const password = encryptSecret('smtp-pass', 'ws_rot:email:password', old);
      await db.query(sql.unsafe`
        insert into channel_configs (workspace_id, channel, settings, secrets)
        values ('ws_rot', 'email', '{}', ${sql.jsonb({ password })})`);
      const headerValue = encryptSecret('postmark-header', 'ws_rot:feedback:postmark:headerValue', old);
      await db.query(sql.unsafe`
        insert into email_feedback_endpoints (workspace_id, id, provider, settings, secrets)
        values ('ws_rot', 'fbe_rot', 'postmark', '{}', ${sql.jsonb({ headerValue })})`);
      const identity = encryptSecret('identity-secret', 'ws_rot:identity-secret', old);
      await db.query(sql.unsafe`
        insert into identity_secrets (workspace_id, secret) values ('ws_rot', ${sql.jsonb(identity)})`);
      const env = { DATABASE_URL: database.url, ENCRYPTION_KEY: `${NEW_KEY},${serverKey()}` };

      // Killed after its first batch: what it did stays done, the rest is still under the old key.
      const first = startCli(['secrets', 'rotate-key', '--batch-size', '1'], { env });
      await new Promise<void>((resolve) => {
        first.child.stderr.on('data', () => {
          first.child.kill('SIGKILL');
          resolve();
        });
        first.child.on('close', () => resolve());
      });
      await first.done;
      const resumed = await runCli(['secrets', 'rotate-key', '--json', '--batch-size', '7'], { env });
      expect(resumed.code, resumed.stderr).to.equal(0);
      const report = JSON.parse(resumed.stdout);
      const fresh = keyRing(parseConfig({ ENCRYPTION_KEY: NEW_KEY }));
      expect(report.keyId).to.equal(fresh.current.id);
      expect(report.stores.every((store: { left: number }) => store.left === 0)).to.equal(true);

      // Only the new key now: every secret opens.
      const rows = (await db.any(
        sql.unsafe`select id, secret_sealed from webhook_endpoints where workspace_id = 'ws_rot' order by id`,
      )) as { id: string; secret_sealed: StoredSecret }[];
      expect(rows).to.have.length(ENDPOINTS);
      rows.forEach((row, i) => {
        expect(decryptSecret(row.secret_sealed, `ws_rot:webhook:${row.id}`, fresh)).to.equal(
          `whsec_secret${i}`,
        );
      });
      const channel = (await db.oneFirst(
        sql.unsafe`select secrets from channel_configs where workspace_id = 'ws_rot'`,
      )) as { password: StoredSecret };
      expect(decryptSecret(channel.password, 'ws_rot:email:password', fresh)).to.equal('smtp-pass');
      const feedback = (await db.oneFirst(
        sql.unsafe`select secrets from email_feedback_endpoints where id = 'fbe_rot'`,
      )) as { headerValue: StoredSecret };
      expect(decryptSecret(feedback.headerValue, 'ws_rot:feedback:postmark:headerValue', fresh)).to.equal(
        'postmark-header',
      );
      const identitySealed = (await db.oneFirst(
        sql.unsafe`select secret from identity_secrets where workspace_id = 'ws_rot'`,
      )) as StoredSecret;
      expect(decryptSecret(identitySealed, 'ws_rot:identity-secret', fresh)).to.equal('identity-secret');

      const again = await runCli(['secrets', 'rotate-key'], { env: { ...env, ENCRYPTION_KEY: NEW_KEY } });
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stdout).to.contain('0 re-encrypted').and.contain('the other keys may now be removed');
      expect(again.stdout + again.stderr).not.to.contain(NEW_KEY);
    } finally {
      await db.end();
      await dropScratchDatabase(database.name);
    }
  });
});
