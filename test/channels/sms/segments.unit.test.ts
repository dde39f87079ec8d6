// The SMS preview's encoding and segment count, and the phone numbers the channel sends to.
import { expect } from 'chai';
import { toE164 } from '../../../src/channels/sms/phone.ts';
import { smsSegments } from '../../../src/channels/sms/segments.ts';
import { isTwilioSignature, twilioSignature } from '../../../src/channels/sms/signature.ts';

describe('SMS: encoding and segments', () => {
  it('counts GSM-7: 160 in one, 153 per part, extension characters as two', () => {
    expect(smsSegments('a'.repeat(160))).to.deep.equal({ encoding: 'GSM-7', segments: 1, characters: 160 });
    expect(smsSegments('a'.repeat(161)).segments).to.equal(2);
    expect(smsSegments('a'.repeat(306)).segments).to.equal(2);
    expect(smsSegments('a'.repeat(307)).segments).to.equal(3);
    // 80 euro signs are 160 septets: one message; one more character makes two.
    expect(smsSegments('€'.repeat(80))).to.deep.include({ encoding: 'GSM-7', segments: 1 });
    expect(smsSegments(`${'€'.repeat(80)}a`).segments).to.equal(2);
    // An escape pair is never split: 152 plain septets then a € start the second part.
    expect(smsSegments(`${'a'.repeat(152)}€${'a'.repeat(10)}`).segments).to.equal(2);
    expect(smsSegments('Ça fait 5€ à Zürich {ok}').encoding).to.equal('GSM-7');
    expect(smsSegments('Ça coûte 5€').encoding).to.equal('UCS-2'); // û is not in the GSM alphabet
  });

  it('counts UCS-2 when one character is outside GSM-7: 70 in one, 67 per part, emoji as two units', () => {
    expect(smsSegments(`${'ç'.repeat(69)}ł`)).to.deep.equal({
      encoding: 'UCS-2',
      segments: 1,
      characters: 70,
    });
    expect(smsSegments('ł'.repeat(71)).segments).to.equal(2);
    expect(smsSegments('ł'.repeat(134)).segments).to.equal(2);
    expect(smsSegments('ł'.repeat(135)).segments).to.equal(3);
    expect(smsSegments('🙂'.repeat(35))).to.deep.include({ encoding: 'UCS-2', segments: 1 });
    expect(smsSegments('🙂'.repeat(36)).segments).to.equal(2);
  });
});

describe('SMS: phone numbers', () => {
  it('normalises to E.164, reading a national number in the default region', () => {
    expect(toE164('+33 6 12 34 56 78')).to.equal('+33612345678');
    expect(toE164('06 12 34 56 78', 'FR')).to.equal('+33612345678');
    expect(toE164('(415) 555-2671', 'US')).to.equal('+14155552671');
    expect(toE164('06 12 34 56 78')).to.equal(null);
    expect(toE164('12', 'FR')).to.equal(null);
    expect(toE164('not a number', 'FR')).to.equal(null);
  });
});

describe('SMS: X-Twilio-Signature', () => {
  const url = 'https://switchboard.example.com/api/feedback/sms/ws_1/status';
  const params = { MessageSid: 'SM1', MessageStatus: 'delivered', AccountSid: 'AC1' };

  it('signs the URL and the parameters sorted by name, and refuses any change', () => {
    const signature = twilioSignature('token', url, params);
    // HMAC-SHA1 of the URL + "AccountSidAC1MessageSidSM1MessageStatusdelivered", base64.
    expect(signature).to.match(/^[A-Za-z0-9+/]{27}=$/);
    expect(isTwilioSignature('token', url, params, signature)).to.equal(true);
    expect(isTwilioSignature('other', url, params, signature)).to.equal(false);
    expect(isTwilioSignature('token', `${url}?x=1`, params, signature)).to.equal(false);
    expect(isTwilioSignature('token', url, { ...params, MessageStatus: 'failed' }, signature)).to.equal(
      false,
    );
    expect(isTwilioSignature('token', url, params, undefined)).to.equal(false);
    expect(isTwilioSignature('token', url, params, 'short')).to.equal(false);
  });
});
