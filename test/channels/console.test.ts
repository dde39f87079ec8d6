// The channels page of the console over HTTP: the email channel saved from its form (secrets never
// shown back: a "set" badge and a field that replaces them), a test send to a typed address, the
// feedback endpoints' URLs; MEMBER reads without buttons and its POSTs are refused; CSRF; hostile
// values escaped.
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { closeChannels } from '../../src/channels/index.ts';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { fakeBotApi } from '../support/fakeBotApi.ts';
import { memberOf } from '../support/helpers.ts';
import { type SmtpSink, startSmtpSink } from './smtpSink.ts';

describe('console: channels (settings/channels)', () => {
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(async () => {
    await closeChannels();
    await sink.close();
  });

  const emailForm = (token: string, extra: Record<string, string> = {}) => ({
    _csrf: token,
    host: '127.0.0.1',
    port: String(sink.port),
    fromEmail: 'news@acme.test',
    fromName: 'Acme <b>',
    ...extra,
  });

  it('saves the email channel from its form, keeps a secret left empty, and sends a test', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/channels`;
    const api = `/api/workspaces/${workspaceId}/channels/email`;
    const page = await consolePage(client, path);
    expect(page.text)
      .to.contain('not configured')
      .and.contain('Save Email settings')
      .and.not.contain('Send test');
    const saved = await postConsoleForm(
      client,
      `${path}/email`,
      emailForm(page.token, { password: 'hunter2-secret' }),
    );
    const after = await followRedirect(client, saved);
    expect(after.text).to.contain('Email channel saved.').and.contain('badge-success">set');
    expect(after.text).to.not.contain('hunter2-secret');
    expect((await client.get(api)).body).to.include({
      host: '127.0.0.1',
      passwordSet: true,
      fromName: 'Acme <b>',
    });
    expect(after.text).to.contain('value="Acme &lt;b&gt;"');
    // Saved again with the password field empty: the stored one is kept; ticking "remove" drops it.
    await postConsoleForm(client, `${path}/email`, emailForm(page.token));
    expect((await client.get(api)).body.passwordSet).to.equal(true);
    await postConsoleForm(client, `${path}/email`, emailForm(page.token, { password__remove: 'yes' }));
    expect((await client.get(api)).body.passwordSet).to.equal(false);
    // A DKIM key pasted into its textarea (CRLF, blank lines around): stored, then kept when left empty.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = `\r\n${privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().replaceAll('\n', '\r\n')}\r\n`;
    const dkim = { dkimDomain: 'acme.test', dkimSelector: 'sb1' };
    await postConsoleForm(client, `${path}/email`, emailForm(page.token, { ...dkim, dkimPrivateKey: pem }));
    expect((await client.get(api)).body.dkim).to.deep.equal({
      domain: 'acme.test',
      selector: 'sb1',
      privateKeySet: true,
    });
    await postConsoleForm(client, `${path}/email`, emailForm(page.token, dkim));
    expect((await client.get(api)).body.dkim.privateKeySet).to.equal(true);
    expect((await consolePage(client, path)).text)
      .to.not.contain('PRIVATE KEY-----\r')
      .and.not.contain(pem.slice(40, 80));

    const before = sink.messages.length;
    const sent = await postConsoleForm(client, `${path}/email/test`, {
      _csrf: page.token,
      to: 'me@acme.test',
    });
    expect((await followRedirect(client, sent)).text).to.contain('Test message accepted for me@acme.test');
    expect(sink.messages.length).to.equal(before + 1);
    sink.reject.set('nobody@acme.test', 550);
    const refused = await postConsoleForm(client, `${path}/email/test`, {
      _csrf: page.token,
      to: 'nobody@acme.test',
    });
    expect((await followRedirect(client, refused)).text)
      .to.contain('flash-error')
      .and.contain('Send a test message: not done');
  });

  it('configures push from its subject (the key pair made once) and shows the public key', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/channels`;
    const page = await consolePage(client, path);
    const bad = await postConsoleForm(client, `${path}/push`, {
      _csrf: page.token,
      _back: path,
      subject: 'nope',
    });
    expect((await followRedirect(client, bad)).text)
      .to.contain('flash-error')
      .and.contain('subject');
    const saved = await postConsoleForm(client, `${path}/push`, {
      _csrf: page.token,
      subject: 'mailto:ops@acme.test',
    });
    const after = await followRedirect(client, saved);
    const push = (await client.get(`/api/workspaces/${workspaceId}/channels/push`)).body;
    expect(push.subject).to.equal('mailto:ops@acme.test');
    expect(after.text).to.contain('Push channel saved.').and.contain(`data-copy="${push.publicKey}"`);
    const { client: member } = await memberOf(client, workspaceId, 'MEMBER');
    const seen = await consolePage(member, path);
    expect(seen.text).to.contain('mailto:ops@acme.test').and.not.contain('Save Push settings');
    const refused = await postConsoleForm(member, `${path}/push`, {
      _csrf: seen.token,
      subject: 'mailto:x@acme.test',
    });
    expect(refused.status).to.equal(403);
    expect((await client.get(`/api/workspaces/${workspaceId}/channels/push`)).body.subject).to.equal(
      'mailto:ops@acme.test',
    );
  });

  it('sets the Telegram bot token (checked with Telegram, never shown back)', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/channels`;
    const page = await consolePage(client, path);
    const unknown = await postConsoleForm(client, `${path}/telegram`, {
      _csrf: page.token,
      _back: path,
      botToken: '123:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    expect((await followRedirect(client, unknown)).text).to.contain('flash-error');
    expect((await client.get(`/api/workspaces/${workspaceId}/channels/telegram`)).status).to.equal(404);
    const { token, bot } = fakeBotApi().addBot();
    const saved = await postConsoleForm(client, `${path}/telegram`, { _csrf: page.token, botToken: token });
    const after = await followRedirect(client, saved);
    expect(after.text)
      .to.contain(`Telegram channel saved: @${bot.username}.`)
      .and.contain('badge-success">set');
    expect(after.text).to.not.contain(token);
    expect(fakeBotApi().webhooks.get(token)?.url).to.contain(workspaceId);
    const { client: member } = await memberOf(client, workspaceId, 'MEMBER');
    const seen = await consolePage(member, path);
    expect(seen.text).to.contain(`@${bot.username}`).and.not.contain('Save Telegram settings');
    const refused = await postConsoleForm(member, `${path}/telegram`, { _csrf: seen.token, botToken: token });
    expect(refused.status).to.equal(403);
  });

  it('refuses a bad form with the API’s message and changes nothing', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/channels`;
    const page = await consolePage(client, path);
    expect(page.text).to.contain(`name="_back" value="${path}"`);
    const bad = await postConsoleForm(client, `${path}/email`, {
      ...emailForm(page.token, { fromEmail: 'not an address', port: 'x' }),
      _back: path,
    });
    const back = await followRedirect(client, bad);
    expect(back.text).to.contain('flash-error').and.contain('fromEmail');
    expect((await client.get(`/api/workspaces/${workspaceId}/channels/email`)).status).to.equal(404);
  });

  it('shows a MEMBER the channels without buttons and refuses its POSTs; CSRF and other workspaces', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const path = `/app/${workspaceId}/settings/channels`;
    const first = await consolePage(admin, path);
    await postConsoleForm(admin, `${path}/email`, emailForm(first.token));
    const { client: member } = await memberOf(admin, workspaceId, 'MEMBER');
    const page = await consolePage(member, path);
    expect(page.text)
      .to.contain('127.0.0.1')
      .and.not.contain('Save Email settings')
      .and.not.contain('Send test');
    const changed = await postConsoleForm(
      member,
      `${path}/email`,
      emailForm(page.token, { host: '127.0.0.2' }),
    );
    expect(changed.status).to.equal(403);
    const tested = await postConsoleForm(member, `${path}/email/test`, {
      _csrf: page.token,
      to: 'x@acme.test',
    });
    expect(tested.status).to.equal(403);
    const forged = await postConsoleForm(
      admin,
      `${path}/email`,
      emailForm('x'.repeat(32), { host: '127.0.0.2' }),
    );
    expect(forged.status).to.equal(403);
    expect((await admin.get(`/api/workspaces/${workspaceId}/channels/email`)).body.host).to.equal(
      '127.0.0.1',
    );
    const { client: stranger } = await workspaceWithAdmin();
    await consolePage(stranger, path, 404);
  });
});
