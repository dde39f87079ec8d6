// The email channel's configuration API: secrets in and never out, sealed at rest, SSRF rules,
// roles and scopes, and the test message with the SMTP server's own reply.
import { expect } from 'chai';
import { z } from 'zod';
import { closeChannels } from '../../src/channels/index.ts';
import type { Client } from '../support/client.ts';
import { expectProblem, keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf, sql, testDb } from '../support/helpers.ts';
import { server } from '../support/server.ts';
import { type SmtpSink, startSmtpSink } from './smtpSink.ts';

const PASSWORD = 'hunter2-smtp-password';
const DKIM_KEY_MARKER = 'PRIVATE KEY';

async function dkimKeyPem() {
  const { generateKeyPairSync } = await import('node:crypto');
  return generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
}

describe('email channel configuration', () => {
  let sink: SmtpSink;
  let admin: Client;
  let workspaceId: string;
  let path: string;

  before(async () => {
    sink = await startSmtpSink();
  });
  after(async () => {
    await closeChannels(); // the pooled connections to the sink
    await sink.close();
  });
  beforeEach(async () => {
    ({ client: admin, workspaceId } = await workspaceWithAdmin());
    path = `/api/workspaces/${workspaceId}/channels/email`;
  });

  const sinkConfig = () => ({
    host: '127.0.0.1',
    port: sink.port,
    secure: false,
    username: 'relay-user',
    password: PASSWORD,
    fromEmail: 'news@acme.test',
    fromName: 'Acme',
  });

  it('PUT stores it and answers the GET shape; GET never shows the password or the DKIM key', async () => {
    const put = await admin.put(path, {
      ...sinkConfig(),
      dkim: { domain: 'acme.test', selector: 'sb1', privateKey: await dkimKeyPem() },
    });
    expect(put.status, put.text).to.equal(200);
    const got = await admin.get(path);
    expect(got.status).to.equal(200);
    expect(got.body).to.deep.equal(put.body);
    expect(got.body).to.include({
      host: '127.0.0.1',
      port: sink.port,
      username: 'relay-user',
      passwordSet: true,
    });
    expect(got.body.dkim).to.deep.equal({ domain: 'acme.test', selector: 'sb1', privateKeySet: true });
    expect(got.text).not.to.contain(PASSWORD);
    expect(got.text).not.to.contain(DKIM_KEY_MARKER);
  });

  it('stores no secret in clear text: the raw row holds only {keyId, iv, tag, ciphertext}', async () => {
    const pem = await dkimKeyPem();
    await admin.put(path, {
      ...sinkConfig(),
      dkim: { domain: 'acme.test', selector: 'sb1', privateKey: pem },
    });
    const raw = await testDb().one(
      sql.type(
        z.object({ settings: z.string(), secrets: z.string() }),
      )`select settings::text, secrets::text from channel_configs where workspace_id = ${workspaceId}`,
    );
    const text = `${raw.settings} ${raw.secrets}`;
    expect(text).not.to.contain(PASSWORD);
    expect(text).not.to.contain(DKIM_KEY_MARKER);
    expect(text).not.to.contain(pem.split('\n')[1]);
    const secrets = JSON.parse(raw.secrets);
    expect(Object.keys(secrets)).to.have.members(['password', 'dkimPrivateKey']);
    expect(Object.keys(secrets.password)).to.have.members(['keyId', 'iv', 'tag', 'ciphertext']);
  });

  it('a PUT without password keeps it while host and username are unchanged, and drops it when they change', async () => {
    await admin.put(path, sinkConfig());
    const { password: _kept, ...withoutPassword } = sinkConfig();
    expect((await admin.put(path, { ...withoutPassword, fromName: 'Renamed' })).body.passwordSet).to.equal(
      true,
    );
    expect((await admin.put(path, { ...withoutPassword, username: 'other' })).body.passwordSet).to.equal(
      false,
    );
    expect((await admin.put(path, { ...sinkConfig(), password: null })).body.passwordSet).to.equal(false);
  });

  it('takes one smtpUrl instead of host, port, secure, username and password', async () => {
    const put = await admin.put(path, {
      smtpUrl: `smtps://u%40x:p%3Ass@smtp.example.com`,
      fromEmail: 'a@acme.test',
    });
    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.include({
      host: 'smtp.example.com',
      port: 465,
      secure: true,
      username: 'u@x',
      passwordSet: true,
    });
    const both = await admin.put(path, {
      smtpUrl: 'smtp://smtp.example.com',
      host: 'smtp.example.com',
      fromEmail: 'a@acme.test',
    });
    expect(expectProblem(both, 400)).to.have.nested.property('errors[0].path', 'body.smtpUrl');
  });

  it('names the field of bad input and changes nothing', async () => {
    for (const [body, field] of [
      [{ ...sinkConfig(), host: 'http://smtp.example.com/' }, 'body.host'],
      [{ ...sinkConfig(), port: 70000 }, 'body.port'],
      [{ ...sinkConfig(), fromEmail: 'nope' }, 'body.fromEmail'],
      [
        { ...sinkConfig(), dkim: { domain: 'acme.test', selector: 'sb1', privateKey: 'not a key' } },
        'body.dkim.privateKey',
      ],
      [{ ...sinkConfig(), dkim: { domain: 'acme.test', selector: 'sb1' } }, 'body.dkim.privateKey'],
      [{ smtpUrl: 'http://smtp.example.com', fromEmail: 'a@acme.test' }, 'body.smtpUrl'],
    ] as const) {
      const problem = expectProblem(await admin.put(path, body), 400) as unknown as {
        errors: { path: string }[];
      };
      expect(problem.errors.map((error) => error.path)).to.include(field);
    }
    expectProblem(await admin.get(path), 404);
  });

  it('DELETE answers 204, then 404', async () => {
    await admin.put(path, sinkConfig());
    expect((await admin.delete(path)).status).to.equal(204);
    expectProblem(await admin.get(path), 404);
    expectProblem(await admin.delete(path), 404);
  });

  it('members read, only ADMINs write; keys need channels:read / channels:write', async () => {
    await admin.put(path, sinkConfig());
    const member = await memberOf(admin, workspaceId, 'MEMBER');
    expect((await member.client.get(path)).status).to.equal(200);
    expectProblem(await member.client.put(path, sinkConfig()), 403);
    expectProblem(await member.client.delete(path), 403);
    expectProblem(await member.client.post(`${path}/test`, { to: 'a@acme.test' }), 403);
    const reader = await keyClient(admin, workspaceId, ['channels:read']);
    expect((await reader.client.get(path)).status).to.equal(200);
    expectProblem(await reader.client.put(path, sinkConfig()), 403);
    const writer = await keyClient(admin, workspaceId, ['channels:write']);
    expect((await writer.client.put(path, sinkConfig())).status).to.equal(200);
    const other = await workspaceWithAdmin();
    expectProblem(await other.client.get(path), 404);
  });

  it('POST test sends a real message and answers with the SMTP server’s reply', async () => {
    await admin.put(path, sinkConfig());
    const before = sink.messages.length;
    const sent = await admin.post(`${path}/test`, { to: 'me@acme.test' });
    expect(sent.status, sent.text).to.equal(200);
    expect(sent.body.accepted).to.deep.equal(['me@acme.test']);
    expect(sent.body.response).to.match(/^250 .*queued as sink-\d+/);
    expect(sink.messages.length).to.equal(before + 1);
    expect(sink.messages.at(-1)?.toString()).to.contain(sent.body.messageId);
  });

  it('POST test names the stage that failed: a 550 at RCPT TO is a 502 naming RCPT TO', async () => {
    await admin.put(path, sinkConfig());
    sink.reject.set('gone@acme.test', 550);
    const failed = expectProblem(await admin.post(`${path}/test`, { to: 'gone@acme.test' }), 502);
    expect(failed).to.include({ stage: 'rcpt-to', responseCode: 550 });
    expect(failed.detail).to.contain('RCPT TO').and.contain('550 5.1.1 user unknown');
  });

  it('POST test without a channel is 404', async () => {
    expectProblem(await admin.post(`${path}/test`, { to: 'me@acme.test' }), 404);
  });

  describe('private SMTP hosts (as in production: ALLOW_PRIVATE_TARGETS off)', () => {
    // The shared test server allows private targets; these tests turn that off for their duration.
    const settings = () => server().context.config;
    let saved: { ALLOW_PRIVATE_TARGETS: boolean; SMTP_ALLOWED_HOSTS: string[] };
    beforeEach(() => {
      const current = settings();
      saved = {
        ALLOW_PRIVATE_TARGETS: current.ALLOW_PRIVATE_TARGETS,
        SMTP_ALLOWED_HOSTS: current.SMTP_ALLOWED_HOSTS,
      };
      Object.assign(current, { ALLOW_PRIVATE_TARGETS: false, SMTP_ALLOWED_HOSTS: [] });
    });
    afterEach(() => Object.assign(settings(), saved));

    it('refuses a private IP literal or a name resolving to one at save, naming both settings', async () => {
      const refused = expectProblem(await admin.put(path, sinkConfig()), 400) as unknown as {
        errors: { path: string; message: string }[];
      };
      expect(refused.errors[0].path).to.equal('body.host');
      expect(refused.errors[0].message)
        .to.contain('SMTP_ALLOWED_HOSTS')
        .and.contain('ALLOW_PRIVATE_TARGETS=true');
      const viaUrl = expectProblem(
        await admin.put(path, { smtpUrl: `smtp://[::1]:${sink.port}`, fromEmail: 'a@acme.test' }),
        400,
      );
      expect(viaUrl).to.have.nested.property('errors[0].path', 'body.smtpUrl');
      const byName = expectProblem(await admin.put(path, { ...sinkConfig(), host: 'localhost' }), 400);
      expect(byName).to.have.nested.property('errors[0].path', 'body.host');
      expect(byName).to.have.nested.property('errors[0].message').that.contains('ALLOW_PRIVATE_TARGETS');
    });

    it('refuses at connect a name saved while private targets were allowed, naming both settings', async () => {
      settings().ALLOW_PRIVATE_TARGETS = true;
      expect((await admin.put(path, { ...sinkConfig(), host: 'localhost' })).status).to.equal(200);
      settings().ALLOW_PRIVATE_TARGETS = false;
      const before = sink.messages.length;
      const blocked = expectProblem(await admin.post(`${path}/test`, { to: 'me@acme.test' }), 422);
      expect(blocked).to.include({ stage: 'connect' });
      expect(blocked.detail).to.contain('blocked: private address');
      expect(blocked.detail).to.contain('SMTP_ALLOWED_HOSTS').and.contain('ALLOW_PRIVATE_TARGETS=true');
      expect(sink.messages.length).to.equal(before);
    });

    it('accepts a host the operator lists in SMTP_ALLOWED_HOSTS', async () => {
      settings().SMTP_ALLOWED_HOSTS = ['127.0.0.1'];
      expect((await admin.put(path, sinkConfig())).status).to.equal(200);
      expect((await admin.post(`${path}/test`, { to: 'me@acme.test' })).status).to.equal(200);
    });
  });
});
