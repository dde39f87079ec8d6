// The secrets kit (AES-256-GCM with a key id per value) and the configuration it reads.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../src/config.ts';
import { decryptSecret, encryptSecret, keyRing, needsResealing } from '../../src/secrets/index.ts';

const OLD = 'a'.repeat(64);
const NEW = Buffer.alloc(32, 7).toString('base64');

function refusal(environment: NodeJS.ProcessEnv): string {
  try {
    parseConfig(environment);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('secrets at rest', () => {
  it('seals with AES-256-GCM and opens only with the same key and context', () => {
    const ring = keyRing(parseConfig({ ENCRYPTION_KEY: OLD }));
    const stored = encryptSecret('smtp-password', 'ws_1:email:password', ring);
    expect(Object.keys(stored)).to.have.members(['keyId', 'iv', 'tag', 'ciphertext']);
    expect(JSON.stringify(stored)).not.to.contain('smtp-password');
    expect(decryptSecret(stored, 'ws_1:email:password', ring)).to.equal('smtp-password');
    expect(() => decryptSecret(stored, 'ws_2:email:password', ring)).to.throw(/integrity/);
    const tampered = { ...stored, ciphertext: Buffer.from('x').toString('base64') };
    expect(() => decryptSecret(tampered, 'ws_1:email:password', ring)).to.throw(/integrity/);
    expect(encryptSecret('smtp-password', '', ring).iv).not.to.equal(
      encryptSecret('smtp-password', '', ring).iv,
    );
  });

  it('rotates: a new key first encrypts, the old one after it still decrypts what it sealed', () => {
    const before = keyRing(parseConfig({ ENCRYPTION_KEY: OLD }));
    const sealed = encryptSecret('dkim-key', '', before);
    const rotated = keyRing(parseConfig({ ENCRYPTION_KEY: `${NEW}, ${OLD}` }));
    expect(decryptSecret(sealed, '', rotated)).to.equal('dkim-key');
    expect(needsResealing(sealed, rotated)).to.equal(true);
    expect(encryptSecret('dkim-key', '', rotated).keyId).not.to.equal(sealed.keyId);
    expect(() => decryptSecret(sealed, '', keyRing(parseConfig({ ENCRYPTION_KEY: NEW })))).to.throw(
      `no ENCRYPTION_KEY with id ${sealed.keyId}`,
    );
  });

  it('generates and keeps a key under DATA_DIR outside production', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-secrets-'));
    const first = keyRing(parseConfig({ DATA_DIR: dir }));
    expect(Buffer.from(readFileSync(path.join(dir, 'encryption-key'), 'utf8'), 'base64')).to.have.length(32);
    expect(keyRing(parseConfig({ DATA_DIR: dir })).current.id).to.equal(first.current.id);
  });

  it('requires ENCRYPTION_KEY in production and names a malformed one', () => {
    const production = { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32) };
    expect(refusal(production)).to.contain('ENCRYPTION_KEY: required in production');
    expect(parseConfig({ ...production, ENCRYPTION_KEY: NEW }).ENCRYPTION_KEY).to.have.length(1);
    expect(refusal({ ENCRYPTION_KEY: 'too-short' })).to.contain('ENCRYPTION_KEY: must be 32 bytes');
  });
});

describe('outbound target settings', () => {
  it('ALLOW_PRIVATE_TARGETS governs every target, WEBHOOK_ALLOW_PRIVATE_TARGETS is its old name', () => {
    expect(parseConfig({}).ALLOW_PRIVATE_TARGETS).to.equal(false);
    const viaOldName = parseConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    expect(viaOldName).to.include({ ALLOW_PRIVATE_TARGETS: true, WEBHOOK_ALLOW_PRIVATE_TARGETS: true });
    const newWins = parseConfig({ ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    expect(newWins).to.include({ ALLOW_PRIVATE_TARGETS: false, WEBHOOK_ALLOW_PRIVATE_TARGETS: false });
    const production = { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32), ENCRYPTION_KEY: OLD };
    expect(refusal({ ...production, ALLOW_PRIVATE_TARGETS: 'true' })).to.contain(
      'ALLOW_PRIVATE_TARGETS: may not be true',
    );
    expect(refusal({ ...production, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).to.contain(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS: may not be true',
    );
  });

  it('reads SMTP_ALLOWED_HOSTS as a comma-separated, case-insensitive list', () => {
    expect(
      parseConfig({ SMTP_ALLOWED_HOSTS: ' Relay.internal ,10.0.0.5,[fd00::1]' }).SMTP_ALLOWED_HOSTS,
    ).to.deep.equal(['relay.internal', '10.0.0.5', 'fd00::1']);
  });
});
