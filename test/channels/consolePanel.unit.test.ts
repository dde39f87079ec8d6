// A channel the console has no code for is still drawn: the panel is made from what a channel's
// definition declares (ChannelSettings), so a fax channel added to the registry tomorrow gets its
// form, its write-only secret, its facts to copy and its action with no edit to the page. And the
// posted form reads a secret left empty as "keep", its remove box as "remove".
import { expect } from 'chai';
import type { Request } from 'express';
import { type ConfigurableChannel, channelPanel, settingsInput } from '../../src/channels/console.ts';
import type { SettingsView } from '../../src/channels/types.ts';
import { html } from '../../src/console/index.ts';
import { expectInert } from '../support/console.ts';

const HOSTILE = '"><img src=x onerror=alert(1)>';

const fax: ConfigurableChannel = {
  name: 'fax',
  title: 'Fax',
  settings: {
    intro: 'Faxes go through your gateway.',
    fields: [
      { name: 'number', label: 'Sending number', group: 'Line', required: true },
      { name: 'coverPage', label: 'Cover page', kind: 'checkbox', group: 'Line' },
      { name: 'apiKey', label: 'API key', kind: 'secret', removable: true },
      { name: 'footer', label: 'Footer', kind: 'textarea' },
    ],
    load: async () => VIEW,
    save: async () => 'Fax channel saved.',
    actions: [
      {
        name: 'test',
        title: 'Send a test fax',
        button: 'Send test fax',
        fields: [{ name: 'to', label: 'To' }],
        run: async () => 'sent',
      },
    ],
  },
};

const VIEW: SettingsView = {
  configured: true,
  values: { number: HOSTILE, coverPage: 'yes', footer: `</textarea>${HOSTILE}` },
  secretsSet: { apiKey: true },
  facts: [{ label: 'Status URL', value: `https://x.test/${HOSTILE}`, copy: true }],
};

const context = (admin: boolean) => ({
  csrf: html`<input type="hidden" name="_csrf" value="t">`,
  admin,
  page: '/app/ws_1/settings/channels',
});

describe('channels console: a panel from any channel definition', () => {
  it('draws the form, the secret write-only, the facts and the action for an ADMIN', () => {
    const panel = channelPanel(fax, VIEW, context(true)).toString();
    expectInert(panel);
    expect(panel).to.contain('<h2 id="fax-title">Fax <span class="badge badge-success">configured</span>');
    expect(panel).to.contain('<form method="post" action="/app/ws_1/settings/channels/fax"');
    expect(panel).to.contain('<fieldset><legend>Line</legend><label for="fax-number">Sending number</label>');
    expect(panel).to.contain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(panel).to.match(/<input type="checkbox" name="coverPage" value="yes" checked>/);
    expect(panel).to.contain('&lt;/textarea&gt;');
    expect(panel).to.match(
      /<input id="fax-apiKey" name="apiKey" type="password" autocomplete="new-password" placeholder="Leave empty to keep the stored api key">/,
    );
    expect(panel).to.contain('badge-success">set').and.contain('name="apiKey__remove"');
    expect(panel).to.contain('data-copy="https://x.test/&quot;&gt;&lt;img');
    expect(panel).to.contain('<button type="submit">Save Fax settings</button>');
    expect(panel).to.contain('action="/app/ws_1/settings/channels/fax/test"').and.contain('Send test fax');
  });

  it('shows a MEMBER the values disabled, a secret only as its badge, and no button', () => {
    const panel = channelPanel(fax, VIEW, context(false)).toString();
    expect(panel).to.match(/name="number" value="[^"]*"[^>]* disabled>/);
    expect(panel).to.contain('<p>API key: <span class="badge badge-success">set</span></p>');
    expect(panel)
      .to.not.contain('name="apiKey"')
      .and.not.contain('<button type="submit"')
      .and.not.contain('Send test fax');
    const unset = channelPanel(fax, { ...VIEW, configured: false }, context(true)).toString();
    expect(unset).to.contain('badge-neutral">not configured').and.not.contain('Send test fax');
  });

  it('reads a secret left empty as keep, its remove box as remove, and a value as the new one', () => {
    const input = (body: Record<string, string>) => settingsInput({ body } as unknown as Request);
    expect(input({}).secret('apiKey')).to.equal(undefined);
    expect(input({ apiKey: '  ' }).secret('apiKey')).to.equal(undefined);
    expect(input({ apiKey: '', apiKey__remove: 'yes' }).secret('apiKey')).to.equal(null);
    expect(input({ apiKey: ' k1 ', apiKey__remove: 'yes' }).secret('apiKey')).to.equal(' k1 ');
    expect(input({ number: ' +33 1 ', coverPage: 'yes' }).text('number')).to.equal('+33 1');
    expect(input({ coverPage: 'yes' }).checked('coverPage')).to.equal(true);
    expect(input({}).checked('coverPage')).to.equal(false);
  });
});
