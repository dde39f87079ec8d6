// The channels page is drawn from the registry: every registered channel has its configuration
// form (its definition's fields, nothing written for it in the console), SMS included; SMS is
// configured from its form against a local fake Twilio, its auth token write-only (left empty, the
// stored one is used again), and a MEMBER reads it without a button and is refused when posting.
import { expect } from 'chai';
import { CHANNEL_REGISTRY } from '../../src/channels/registry.ts';
import type { ChannelDefinition } from '../../src/channels/types.ts';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { FakeTwilio } from './sms/fakeTwilio.ts';

describe('console: every channel of the registry on settings/channels', function () {
  this.timeout(60_000);
  const twilio = new FakeTwilio();
  before(() => twilio.start());
  after(() => twilio.stop());

  it("renders each registered channel's form from its definition", async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/channels`;
    const page = await consolePage(client, path);
    const registered: readonly ChannelDefinition[] = CHANNEL_REGISTRY;
    expect(registered.map((c) => c.name)).to.include('sms');
    for (const channel of registered) {
      const panel =
        new RegExp(
          `<section class="panel" aria-labelledby="${channel.name}-title">[\\s\\S]*?</section>`,
        ).exec(page.text)?.[0] ?? '';
      expect(panel, channel.name).to.contain(`<form method="post" action="${path}/${channel.name}"`);
      expect(panel).to.contain(`Save ${channel.title} settings`);
      for (const field of channel.settings.fields)
        expect(panel, `${channel.name}.${field.name}`).to.contain(`name="${field.name}"`);
    }
  });

  it('configures SMS from its form; the auth token is never shown and kept when left empty', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/channels`;
    const api = `/api/workspaces/${workspaceId}/channels/sms`;
    const page = await consolePage(client, path);
    const account = twilio.addAccount();
    const form = {
      _csrf: page.token,
      _back: path,
      accountSid: account.accountSid,
      authToken: account.authToken,
      from: '+14155550100',
      defaultRegion: 'fr',
      apiUrl: twilio.url,
    };
    const bad = await postConsoleForm(client, `${path}/sms`, { ...form, accountSid: 'AC123' });
    expect((await followRedirect(client, bad)).text)
      .to.contain('flash-error')
      .and.contain('accountSid');
    expect((await client.get(api)).status).to.equal(404);
    const refused = await postConsoleForm(client, `${path}/sms`, { ...form, authToken: 'f'.repeat(32) });
    expect((await followRedirect(client, refused)).text).to.contain('flash-error');
    expect((await client.get(api)).status).to.equal(404);

    const saved = await postConsoleForm(client, `${path}/sms`, form);
    const after = await followRedirect(client, saved);
    expect(after.text).to.contain('SMS channel saved.').and.not.contain(account.authToken);
    const sms = (await client.get(api)).body;
    expect(sms).to.include({
      accountSid: account.accountSid,
      from: '+14155550100',
      defaultRegion: 'FR',
      authTokenSet: true,
    });
    const panel = /aria-labelledby="sms-title">[\s\S]*?<\/section>/.exec(after.text)?.[0] ?? '';
    expect(panel).to.contain('badge-success">configured').and.contain('badge-success">set');
    expect(panel)
      .to.contain(`data-copy="${sms.inboundUrl}"`)
      .and.contain(`data-copy="${sms.statusCallbackUrl}"`);
    expect(panel).to.contain(`value="${account.accountSid}"`);

    // Saved again without the token: the stored one is checked with the provider and kept.
    const again = await postConsoleForm(client, `${path}/sms`, {
      ...form,
      authToken: '',
      from: '',
      messagingServiceSid: `MG${'a'.repeat(32)}`,
    });
    expect((await followRedirect(client, again)).text).to.contain('SMS channel saved.');
    expect((await client.get(api)).body).to.include({
      from: null,
      messagingServiceSid: `MG${'a'.repeat(32)}`,
    });

    const { client: member } = await memberOf(client, workspaceId, 'MEMBER');
    const seen = await consolePage(member, path);
    expect(seen.text).to.contain(account.accountSid).and.not.contain('Save SMS settings');
    const forbidden = await postConsoleForm(member, `${path}/sms`, {
      ...form,
      _csrf: seen.token,
      defaultRegion: 'DE',
    });
    expect(forbidden.status).to.equal(403);
    expect((await client.get(api)).body.defaultRegion).to.equal('FR');
    await consolePage(member, `${path}/fax`, 404);
  });

  it('answers 404 for a channel or an action the registry does not have', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/channels`;
    const page = await consolePage(client, path);
    expect((await postConsoleForm(client, `${path}/fax`, { _csrf: page.token })).status).to.equal(404);
    expect((await postConsoleForm(client, `${path}/sms/test`, { _csrf: page.token })).status).to.equal(404);
  });
});
