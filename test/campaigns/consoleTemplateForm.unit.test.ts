// The template editor's fields come from each channel's step schema in the registry: the control
// each field gets, and the form's values read back through the schema with Liquid problems placed.
import { expect } from 'chai';
import { fieldsOf, readStep } from '../../src/campaigns/consoleTemplateForm.ts';
import { CHANNEL_REGISTRY, channelNamed } from '../../src/channels/index.ts';

const controls = (channel: string) =>
  Object.fromEntries(
    fieldsOf(channelNamed(channel)).map((f) => [f.name, `${f.control}${f.required ? '' : '?'}`]),
  );

describe('campaigns: the template editor’s fields', () => {
  it('gives every channel’s step fields a control by what its schema takes', () => {
    expect(controls('email')).to.deep.equal({ subject: 'text', body: 'textarea', preheader: 'text?' });
    expect(controls('push')).to.deep.equal({
      title: 'text',
      body: 'text',
      url: 'url?',
      icon: 'url?',
      urgency: 'select?',
      ttlSeconds: 'number?',
      topic: 'text?',
    });
    expect(fieldsOf(channelNamed('push')).find((f) => f.name === 'urgency')?.options).to.deep.equal([
      'very-low',
      'low',
      'normal',
      'high',
    ]);
    expect(controls('telegram')).to.deep.equal({ text: 'textarea', parseMode: 'select?' });
    expect(controls('sms')).to.deep.equal({ text: 'textarea' });
    for (const channel of CHANNEL_REGISTRY)
      expect(fieldsOf(channel).map((f) => f.name)).to.not.include.members(['type', 'channel']);
  });

  it('reads the values back through the schema: empty optional fields left out, numbers as numbers', () => {
    const fields = fieldsOf(channelNamed('push'));
    const read = readStep('push', fields, {
      title: 'Hi {{ contact.firstName }}',
      body: 'Back soon',
      url: '',
      icon: '',
      urgency: 'high',
      ttlSeconds: '60',
      topic: '',
    });
    expect(read.problems).to.deep.equal([]);
    expect(read.step).to.deep.equal({
      type: 'send',
      channel: 'push',
      title: 'Hi {{ contact.firstName }}',
      body: 'Back soon',
      urgency: 'high',
      ttlSeconds: 60,
    });
  });

  it('names each problem with its field, and a Liquid one with its line and column', () => {
    const fields = fieldsOf(channelNamed('email'));
    const read = readStep('email', fields, {
      subject: '',
      body: 'one\ntwo {{ x | nosuchfilter }}',
      preheader: '',
    });
    expect(read.step).to.equal(null);
    expect(read.problems.map((p) => [p.field, p.line, p.column])).to.deep.equal([
      ['subject', undefined, undefined],
      ['body', 2, 5],
    ]);
  });
});
