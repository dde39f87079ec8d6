import { expect } from 'chai';
import { isSecretName, REDACTED, redact } from '../../src/audit/redact.ts';

describe('Audit log: redaction of secrets', () => {
  it('names every secret setting the API has as a secret, and none of the plain ones', () => {
    for (const name of [
      'password',
      'secret',
      'previousSecret',
      'privateKey',
      'dkimPrivateKey',
      'vapidPrivateKey',
      'botToken',
      'webhook_secret',
      'key_hash',
      'keyHash',
      'key',
      'apiKey',
      'Authorization',
      'identitySecret',
    ])
      expect(isSecretName(name), name).to.equal(true);
    for (const name of [
      'name',
      'host',
      'username',
      'publicKey',
      'url',
      'events',
      'scopes',
      'signatureScheme',
    ])
      expect(isSecretName(name), name).to.equal(false);
  });

  it('keeps the place of a secret and drops its value, at any depth, and keeps booleans and nulls', () => {
    const input = {
      host: 'smtp.example.com',
      password: 'hunter2',
      passwordSet: true,
      dkim: { domain: 'acme.test', privateKey: '-----BEGIN PRIVATE KEY-----abc', privateKeySet: true },
      endpoints: [{ secret: 'whsec_abc', url: 'https://example.com' }],
      previousSecret: null,
      token: 42,
    };
    expect(redact(input)).to.deep.equal({
      host: 'smtp.example.com',
      password: REDACTED,
      passwordSet: true,
      dkim: { domain: 'acme.test', privateKey: REDACTED, privateKeySet: true },
      endpoints: [{ secret: REDACTED, url: 'https://example.com' }],
      previousSecret: null,
      token: REDACTED,
    });
  });

  it('cuts the password out of a URL with credentials, wherever it appears', () => {
    expect(redact({ smtpUrl: 'smtps://apikey:s3cret@smtp.example.com:465' })).to.deep.equal({
      smtpUrl: `smtps://apikey:${REDACTED}@smtp.example.com:465`,
    });
    expect(redact(['https://user:pw@example.com/x'])).to.deep.equal([
      `https://user:${REDACTED}@example.com/x`,
    ]);
    expect(redact('https://example.com/a:b@c')).to.equal('https://example.com/a:b@c');
  });

  it('redacts an object or array held under a secret name as a whole', () => {
    expect(redact({ secrets: { a: 'x' }, tokens: ['t1'] })).to.deep.equal({
      secrets: REDACTED,
      tokens: REDACTED,
    });
  });
});
