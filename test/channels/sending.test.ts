// The Channel boundary over email: what reaches the SMTP server (our Message-ID, the
// X-Switchboard-Message-ID and RFC 8058 headers, a DKIM signature covering both List-* headers)
// and how each SMTP answer is classified.
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { authenticate } from 'mailauth';
import { simpleParser } from 'mailparser';
import { closeChannels, type EmailMessage, sendMessage } from '../../src/channels/index.ts';
import type { Client } from '../support/client.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { headerValues, type SmtpSink, startSilentSmtpServer, startSmtpSink } from './smtpSink.ts';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUBLIC_KEY = keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

/** DNS as mailauth asks it: only our selector's TXT record exists. */
async function fakeDns(name: string, type: string) {
  if (type === 'TXT' && name === 'sb1._domainkey.acme.test') return [[`v=DKIM1; k=rsa; p=${PUBLIC_KEY}`]];
  throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
}

const message = (to: string, id = `msg_${Math.random().toString(36).slice(2)}`): EmailMessage => ({
  channel: 'email',
  id,
  to,
  subject: 'Hello',
  html: '<p>Hi there</p>',
  text: 'Hi there',
  unsubscribe: { url: 'https://app.example.test/u/TOKEN', mailto: 'mailto:unsub+TOKEN@acme.test' },
});

describe('sending email through the channel boundary', () => {
  let sink: SmtpSink;
  let admin: Client;
  let workspaceId: string;

  before(async () => {
    sink = await startSmtpSink();
  });
  after(async () => {
    await closeChannels();
    await sink.close();
  });
  beforeEach(async () => {
    ({ client: admin, workspaceId } = await workspaceWithAdmin());
  });

  const configure = async (extra: object = {}, port = sink.port) => {
    const put = await admin.put(`/api/workspaces/${workspaceId}/channels/email`, {
      host: '127.0.0.1',
      port,
      secure: false,
      fromEmail: 'news@acme.test',
      fromName: 'Acme',
      ...extra,
    });
    expect(put.status, put.text).to.equal(200);
  };
  const send = (email: EmailMessage) => sendMessage(server().context, workspaceId, email);

  it('sends our Message-ID, X-Switchboard-Message-ID and the RFC 8058 headers, DKIM-signed over both List-* headers', async () => {
    await configure({
      dkim: {
        domain: 'acme.test',
        selector: 'sb1',
        privateKey: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }),
      },
    });
    const outcome = await send(message('alice@example.test', 'msg_0001'));
    // The provider id is the one the server's reply gives ("queued as …"): provider feedback names it.
    expect(outcome.status === 'sent' && outcome.response).to.match(/^250 .*queued as sink-/);
    expect(outcome.status === 'sent' && outcome.providerId).to.equal(
      outcome.status === 'sent' && /queued as (\S+)/.exec(outcome.response)?.[1],
    );
    const raw = sink.messages.at(-1) as Buffer;
    const parsed = await simpleParser(raw);
    expect(parsed.messageId).to.equal('<msg_0001@acme.test>');
    expect(parsed.html).to.contain('<p>Hi there</p>');
    const headers = headerValues(parsed.headerLines);
    expect(headers['x-switchboard-message-id']).to.equal('msg_0001');
    // Spelt on the wire as docs/guides/channels.md writes it (nodemailer upper-cases a trailing -ID).
    expect(raw.toString('utf8')).to.match(/^X-Switchboard-Message-ID: msg_0001\r$/m);
    expect(headers['list-unsubscribe']).to.equal(
      '<https://app.example.test/u/TOKEN>, <mailto:unsub+TOKEN@acme.test>',
    );
    expect(headers['list-unsubscribe-post']).to.equal('List-Unsubscribe=One-Click');
    const { dkim } = await authenticate(raw, { resolver: fakeDns as never, trustReceived: false });
    expect(dkim.results).to.have.length(1);
    expect(dkim.results[0].status.result).to.equal('pass');
    const signed = (headers['dkim-signature'].match(/(?:^|;)\s*h=([^;]+)/)?.[1] ?? '')
      .replace(/\s+/g, '')
      .toLowerCase()
      .split(':');
    expect(signed).to.include.members([
      'list-unsubscribe',
      'list-unsubscribe-post',
      'from',
      'subject',
      'message-id',
    ]);
  });

  it('classifies a 550 at RCPT TO as a bounce and a 451 as retry', async () => {
    await configure();
    sink.reject.set('gone@example.test', 550);
    sink.reject.set('busy@example.test', 451);
    const bounce = await send(message('gone@example.test'));
    expect(bounce).to.include({ status: 'bounce', stage: 'rcpt-to' });
    expect(bounce.status !== 'sent' && bounce.error).to.contain('550 5.1.1 user unknown');
    expect(await send(message('busy@example.test'))).to.include({ status: 'retry', stage: 'rcpt-to' });
  });

  it('classifies a refused connection as retry at connect, and a missing channel as permanent', async () => {
    expect(await send(message('a@example.test'))).to.deep.equal({
      status: 'permanent',
      stage: 'config',
      error: 'channel not configured',
    });
    const closed = await startSmtpSink();
    await closed.close();
    await configure({}, closed.port);
    expect(await send(message('a@example.test'))).to.include({ status: 'retry', stage: 'connect' });
  });

  it('rebuilds the pooled transport when the configuration changes, and stops using it after DELETE', async () => {
    await configure();
    expect((await send(message('a@example.test'))).status).to.equal('sent');
    const second = await startSmtpSink();
    try {
      await configure({}, second.port);
      expect((await send(message('b@example.test'))).status).to.equal('sent');
      expect(second.messages).to.have.length(1);
      expect((await admin.delete(`/api/workspaces/${workspaceId}/channels/email`)).status).to.equal(204);
      expect(await send(message('c@example.test'))).to.include({ status: 'permanent', stage: 'config' });
    } finally {
      await closeChannels();
      await second.close();
    }
  });

  it('a send cut off by closing the channels (shutdown) fails as a retry, and the next send starts afresh', async () => {
    // An SMTP server that greets and then never answers: the send hangs in the SMTP thread.
    const silent = await startSilentSmtpServer();
    try {
      await configure({}, silent.port);
      const hanging = send(message('a@example.test'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      await closeChannels();
      expect(await hanging).to.include({ status: 'retry', stage: 'connect' });
      expect(Date.now() - started).to.be.below(4_000);
      await configure();
      expect((await send(message('b@example.test'))).status).to.equal('sent');
    } finally {
      await silent.close();
    }
  });
});
