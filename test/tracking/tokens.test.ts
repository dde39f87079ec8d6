// Tracking keys: TRACKING_SECRET lists secrets, the first signs and every one verifies, so links in
// mail already sent keep working through a rotation; a key no longer listed stops them.
import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../src/config.ts';
import {
  signClickToken,
  signMessageToken,
  verifyClickToken,
  verifyMessageToken,
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
    expect(() => parseConfig({ TRACKING_MIN_SECONDS_AFTER_SEND: '-1' })).to.throw(
      ConfigError,
      /TRACKING_MIN_SECONDS_AFTER_SEND/,
    );
  });
});
