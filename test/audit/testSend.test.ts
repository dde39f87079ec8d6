// A test message of the email channel is recorded (channel.testSent) once the SMTP server took it;
// one the server refused records nothing.
import { expect } from 'chai';
import { closeChannels } from '../../src/channels/index.ts';
import { type SmtpSink, startSmtpSink } from '../channels/smtpSink.ts';
import { expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { auditOf, expectUser, onlyEntry } from './support.ts';

describe('Audit log: test sends', () => {
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(async () => {
    await closeChannels();
    await sink.close();
  });

  it('records channel.testSent with the address, and nothing for a refused send', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const path = `/api/workspaces/${workspaceId}/channels/email`;
    const put = await client.put(path, {
      host: '127.0.0.1',
      port: sink.port,
      secure: false,
      fromEmail: 'news@acme.test',
    });
    expect(put.status, put.text).to.equal(200);
    sink.reject.set('gone@acme.test', 550);
    expectProblem(await client.post(`${path}/test`, { to: 'gone@acme.test' }), 502);
    expect(await auditOf(client, workspaceId, { action: 'channel.testSent' })).to.deep.equal([]);
    expect((await client.post(`${path}/test`, { to: 'me@acme.test' })).status).to.equal(200);
    const entry = await onlyEntry(client, workspaceId, 'channel.testSent');
    expectUser(entry, user);
    expect(entry.target).to.deep.equal({ type: 'channel', id: 'email' });
    expect(entry.after).to.deep.equal({ to: 'me@acme.test' });
  });
});
