// `switchboard deliveries list|replay` and `switchboard webhooks test`, run as real processes
// against the test database, delivering to a real local receiver.
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { runCli } from '../support/cli.ts';
import { createContact, subscribedWorkspace, useReceiver, waitForDeliveries } from './support.ts';

// The receivers are on 127.0.0.1, as in the test server's own configuration.
const cli = (args: string[]) => runCli(args, { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });

describe('webhook CLI', function () {
  this.timeout(30_000);
  const receiver = useReceiver();

  it('webhooks test sends a signed ping and records it', async () => {
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url, 0);
    const run = await cli(['webhooks', 'test', '--workspace', workspaceId, '--endpoint', endpoint.id]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^ping delivered: HTTP 200 in \d+ ms \(delivery dlv_\w+\)/);
    const [request] = receiver().requests;
    expect(request.headers['x-webhook-event']).to.equal('ping');
    const payload = new Webhook(endpoint.secret).verify(
      request.body,
      request.headers as Record<string, string>,
    );
    expect(payload).to.deep.include({ event: 'ping' });
    const [record] = await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    expect(record).to.include({ event: 'ping', trigger: 'manual', success: true });

    const missing = await cli(['webhooks', 'test', '--workspace', workspaceId, '--endpoint', 'whe_nope']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/No OUTBOUND webhook endpoint whe_nope/);
  });

  it('deliveries list shows records, --failed only the failed ones', async () => {
    receiver().answer = (_request, index) => (index === 0 ? { status: 500 } : {});
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    await waitForDeliveries(client, workspaceId, endpoint.id, 2);
    const all = await cli(['deliveries', 'list', '--workspace', workspaceId, '--json']);
    expect(all.code, all.stderr).to.equal(0);
    expect(JSON.parse(all.stdout).total).to.equal(2);
    const failed = await cli([
      'deliveries',
      'list',
      '--workspace',
      workspaceId,
      '--endpoint',
      endpoint.id,
      '--failed',
      '--json',
    ]);
    const page = JSON.parse(failed.stdout);
    expect(page.total).to.equal(1);
    expect(page.data[0]).to.include({ success: false, responseStatus: 500 });
    const text = await cli([
      'deliveries',
      'list',
      '--workspace',
      workspaceId,
      '--since',
      '2000-01-01T00:00:00Z',
    ]);
    expect(text.stdout.split('\n')[0]).to.match(/^id\s+createdAt\s+direction/);
    const bad = await cli(['deliveries', 'list', '--workspace', workspaceId, '--since', 'yesterday']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.contain('ISO 8601');
  });

  it('deliveries replay re-sends failed messages as manual attempts, with a dry run first', async () => {
    let healthy = false;
    receiver().answer = () => (healthy ? {} : { status: 500 });
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    await createContact(client, workspaceId);
    await waitForDeliveries(client, workspaceId, endpoint.id, 6);
    const args = [
      'deliveries',
      'replay',
      '--workspace',
      workspaceId,
      '--endpoint',
      endpoint.id,
      '--failed-only',
    ];

    const dry = await cli([...args, '--dry-run']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.match(/would replay 2 messages \(dry run; nothing sent\)\n$/);
    expect(receiver().requests).to.have.length(6);

    healthy = true;
    const replay = await cli(args);
    expect(replay.code, replay.stderr).to.equal(0);
    expect(replay.stdout).to.equal('replayed 2 messages: 2 succeeded, 0 failed\n');
    const records = await waitForDeliveries(client, workspaceId, endpoint.id, 8);
    const manual = records.filter((record) => record.trigger === 'manual');
    expect(manual.map((record) => record.success)).to.deep.equal([true, true]);
    expect(manual.map((record) => record.attempt)).to.deep.equal([4, 4]);

    const nothingLeft = await cli([...args, '--dry-run', '--json']);
    expect(JSON.parse(nothingLeft.stdout).wouldReplay).to.equal(0);
  });
});
