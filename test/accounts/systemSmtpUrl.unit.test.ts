// SYSTEM_SMTP_URL: one variable holds the server, its credentials and the sender.
import { expect } from 'chai';
import { parseConfig } from '../../src/config.ts';

const parse = (url: string, more: Record<string, string> = {}) =>
  parseConfig({ NODE_ENV: 'test', SYSTEM_SMTP_URL: url, ...more }).SYSTEM_SMTP_URL;

describe('SYSTEM_SMTP_URL', () => {
  it('reads host, port, TLS, percent-decoded credentials and the sender', () => {
    expect(
      parse('smtps://apikey:p%40ss%3Aword@smtp.example.com?from=Switchboard%20%3Cnoreply%40example.com%3E'),
    ).to.deep.equal({
      host: 'smtp.example.com',
      port: 465,
      secure: true,
      user: 'apikey',
      password: 'p@ss:word',
      from: 'Switchboard <noreply@example.com>',
    });
    expect(parse('smtp://robot%40example.com:secret@[::1]:2525')).to.deep.equal({
      host: '::1',
      port: 2525,
      secure: false,
      user: 'robot@example.com',
      password: 'secret',
      from: 'robot@example.com',
    });
    expect(parse('smtp://relay.internal?from=a@example.com')).to.include({ port: 587, user: undefined });
  });

  it('refuses another scheme, and a URL that names no sender', () => {
    expect(() => parse('https://smtp.example.com?from=a@example.com')).to.throw(
      /SYSTEM_SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/,
    );
    expect(() => parse('smtp://apikey:x@smtp.example.com')).to.throw(/SYSTEM_SMTP_URL: needs a sender/);
  });

  it('needs PUBLIC_URL in production, where links must not point at localhost', () => {
    const production = {
      NODE_ENV: 'production',
      SESSION_SECRET: 's'.repeat(32),
      ENCRYPTION_KEY: 'a'.repeat(64),
      DATABASE_URL: 'postgres://localhost/x',
    };
    expect(() => parse('smtp://relay?from=a@example.com', production)).to.throw(
      /SYSTEM_SMTP_URL: needs PUBLIC_URL/,
    );
    expect(
      parse('smtp://relay?from=a@example.com', { ...production, PUBLIC_URL: 'https://sb.example.com' }),
    ).to.include({ host: 'relay' });
  });
});
