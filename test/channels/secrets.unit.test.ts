// The secrets kit: AES-256-GCM with a key id per value (its configuration: test/config/config.unit.test.ts).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseConfig } from '../../src/config.ts';
import { decryptSecret, encryptSecret, keyRing, needsResealing } from '../../src/secrets/index.ts';

const OLD = 'a'.repeat(64);
const NEW = Buffer.alloc(32, 7).toString('base64');

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
});
