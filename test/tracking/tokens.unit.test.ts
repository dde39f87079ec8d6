// Tracking keys: TRACKING_SECRET lists secrets, the first signs and every one verifies, so links in
// mail already sent keep working through a rotation; a key no longer listed stops them.
import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../src/config.ts';
import {
  signClickToken,
  signMessageToken,
  signUnsubscribeToken,
  verifyClickToken,
  verifyMessageToken,
  verifyUnsubscribeToken,
} from '../../src/messages/index.ts';

const OLD = 'old-tracking-secret-0123456789abcdefghij';
const NEW = 'new-tracking-secret-0123456789abcdefghij';
const MESSAGE = 'msg_01JD2Z3K4M5N6P7Q8R9S0T1V2W';

describe('tracking: keys and rotation', () => {
  it('verifies tokens of every listed key and signs with the first', () => {
    const before = parseConfig({ TRACKING_SECRET: OLD });
    const rotated = parseConfig({ TRACKING_SECRET: `${NEW},${OLD}` });
    const retired = parseConfig({ TRACKING_SECRET: NEW });
    const click = signClickToken(before, MESSAGE, 'https://shop.test/a?b=1#c');
    const open = signMessageToken(before, 'open', MESSAGE);
    expect(verifyClickToken(rotated, click)).to.deep.equal({
      messageId: MESSAGE,
      url: 'https://shop.test/a?b=1#c',
    });
    expect(verifyMessageToken(rotated, 'open', open)).to.equal(MESSAGE);
    expect(verifyClickToken(retired, click)).to.equal(null);
    expect(verifyMessageToken(retired, 'open', open)).to.equal(null);
    const fresh = signMessageToken(rotated, 'open', MESSAGE);
    expect(fresh.split('.')[0]).not.to.equal(open.split('.')[0]);
    expect(verifyMessageToken(retired, 'open', fresh)).to.equal(MESSAGE);
    // An open token is not a honeypot token, nor the other way round.
    expect(verifyMessageToken(rotated, 'honeypot', open)).to.equal(null);
  });

  it('refuses a TRACKING_SECRET shorter than 32 characters, naming it', () => {
    expect(() => parseConfig({ TRACKING_SECRET: `${NEW},short` })).to.throw(ConfigError, /TRACKING_SECRET/);
    expect(() => parseConfig({ TRACKING_MIN_MS_AFTER_SEND: '-1' })).to.throw(
      ConfigError,
      /TRACKING_MIN_MS_AFTER_SEND/,
    );
  });
});

/** The token with one character of part `index` replaced by another of the same alphabet. */
function flipped(token: string, index: number, at = 0): string {
  const parts = token.split('.');
  const part = parts[index];
  const swap = part[at] === 'A' ? 'B' : 'A';
  parts[index] = part.slice(0, at) + swap + part.slice(at + 1);
  return parts.join('.');
}

describe('tracking: tampered tokens', () => {
  const settings = parseConfig({ TRACKING_SECRET: NEW, SESSION_SECRET: OLD });
  const OTHER = 'msg_01JD2Z3K4M5N6P7Q8R9S0T1V2X';
  const URL_TARGET = 'https://shop.test/offer';

  it('refuses an open token whose message id, MAC or key id was changed', () => {
    const token = signMessageToken(settings, 'open', MESSAGE);
    expect(verifyMessageToken(settings, 'open', token)).to.equal(MESSAGE);
    const [keyId, , mac] = token.split('.');
    expect(verifyMessageToken(settings, 'open', `${keyId}.${OTHER}.${mac}`)).to.equal(null);
    expect(verifyMessageToken(settings, 'open', flipped(token, 2))).to.equal(null);
    expect(verifyMessageToken(settings, 'open', flipped(token, 2, 10))).to.equal(null);
    expect(verifyMessageToken(settings, 'open', flipped(token, 0))).to.equal(null);
  });

  it('refuses a truncated, extended or empty MAC, and extra or missing parts', () => {
    const token = signMessageToken(settings, 'open', MESSAGE);
    const [keyId, , mac] = token.split('.');
    for (const forged of [
      `${keyId}.${MESSAGE}.${mac.slice(0, -2)}`,
      `${keyId}.${MESSAGE}.${mac}AA`,
      `${keyId}.${MESSAGE}.`,
      `${keyId}.${MESSAGE}`,
      `${token}.extra`,
      `${keyId}.${MESSAGE.toLowerCase()}.${mac}`,
      '',
      '...',
    ]) {
      expect(verifyMessageToken(settings, 'open', forged), forged).to.equal(null);
    }
  });

  it('refuses a click token pointed at another URL, even with the MAC of the original', () => {
    const token = signClickToken(settings, MESSAGE, URL_TARGET);
    expect(verifyClickToken(settings, token)).to.deep.equal({ messageId: MESSAGE, url: URL_TARGET });
    const [keyId, messageId, , mac] = token.split('.');
    const elsewhere = Buffer.from('https://evil.test/offer').toString('base64url');
    expect(verifyClickToken(settings, `${keyId}.${messageId}.${elsewhere}.${mac}`)).to.equal(null);
    expect(verifyClickToken(settings, flipped(token, 3))).to.equal(null);
    // A click token is no open token, and an open token no click token.
    expect(verifyMessageToken(settings, 'open', token)).to.equal(null);
    expect(verifyClickToken(settings, signMessageToken(settings, 'open', MESSAGE))).to.equal(null);
  });

  it('refuses a genuinely signed click token to anything but a web URL', () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'mailto:a@b.test', 'not a url']) {
      expect(verifyClickToken(settings, signClickToken(settings, MESSAGE, url)), url).to.equal(null);
    }
  });

  it('refuses a token signed with another secret, whatever its key id claims', () => {
    const stranger = parseConfig({ TRACKING_SECRET: 'stranger-tracking-secret-0123456789abcdef' });
    const token = signMessageToken(stranger, 'open', MESSAGE);
    expect(verifyMessageToken(settings, 'open', token)).to.equal(null);
    const [, , mac] = token.split('.');
    const [ownKeyId] = signMessageToken(settings, 'open', MESSAGE).split('.');
    expect(verifyMessageToken(settings, 'open', `${ownKeyId}.${MESSAGE}.${mac}`)).to.equal(null);
  });

  it('keeps unsubscribe tokens apart from tracking tokens, and refuses tampered ones', () => {
    const token = signUnsubscribeToken(settings, MESSAGE);
    expect(verifyUnsubscribeToken(settings, token)).to.equal(MESSAGE);
    expect(verifyUnsubscribeToken(settings, flipped(token, 2))).to.equal(null);
    const [keyId, , mac] = token.split('.');
    expect(verifyUnsubscribeToken(settings, `${keyId}.${OTHER}.${mac}`)).to.equal(null);
    expect(verifyUnsubscribeToken(settings, `${token}.x`)).to.equal(null);
    expect(verifyUnsubscribeToken(settings, signMessageToken(settings, 'open', MESSAGE))).to.equal(null);
    expect(verifyMessageToken(settings, 'open', token)).to.equal(null);
    // Another session secret: links of mail sent under it no longer unsubscribe anyone.
    expect(verifyUnsubscribeToken(parseConfig({ SESSION_SECRET: NEW }), token)).to.equal(null);
  });
});
