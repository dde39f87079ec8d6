// `switchboard deliveries list|replay` and `switchboard webhooks test`, run as real processes
// against the test database, delivering to a real local receiver.
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { runCli, runCliOnTerminal, startCli } from '../support/cli.ts';
import { eventually } from '../support/factories.ts';
import {
  createContact,
  createEndpoint,
  subscribedWorkspace,
  useReceiver,
  waitForDeliveries,
  webhooksPath,
} from './support.ts';

// The receivers are on 127.0.0.1, as in the test server's own configuration.
const ALLOW_PRIVATE = { ALLOW_PRIVATE_TARGETS: 'true' };
const cli = (args: string[]) => runCli(args, { env: ALLOW_PRIVATE });

/** A workspace whose endpoint has `count` delivered messages, ready to be replayed. */
async function deliveredWorkspace(url: string, count: number) {
  const workspace = await subscribedWorkspace(url, count);
  await waitForDeliveries(workspace.client, workspace.workspaceId, workspace.endpoint.id, count);
  return workspace;
}

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

  it('list --failed and replay --failed-only agree about a message waiting for its retry', async function () {
    this.timeout(90_000); // five CLI processes
    // Retry-After holds the next attempt an hour away: the message has a failed attempt, and waits.
    receiver().answer = () => ({ status: 503, headers: { 'retry-after': '3600' } });
    const { client, workspaceId, endpoint } = await subscribedWorkspace(receiver().url);
    await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    const scope = ['--workspace', workspaceId, '--endpoint', endpoint.id];
    const failed = await cli(['deliveries', 'list', ...scope, '--failed', '--json']);
    expect(JSON.parse(failed.stdout).total).to.equal(1);

    const replay = ['deliveries', 'replay', ...scope, '--failed-only', '--dry-run'];
    const dry = await cli(replay);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout.trimEnd().split('\n').at(-1)).to.equal(
      'would replay 0 messages (dry run; nothing sent); 1 left out (a failed attempt, but waiting ' +
        'for its scheduled retry: not failed yet)',
    );
    expect(JSON.parse((await cli([...replay, '--json'])).stdout)).to.include({ wouldReplay: 0, retrying: 1 });
    const help = await cli(['deliveries', 'replay', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).to.contain('waits for a scheduled retry is left out');
  });

  it('replay names each failure and exits 1, pointing at the configuration it sent under', async () => {
    const { workspaceId, endpoint } = await deliveredWorkspace(receiver().url, 2);
    const args = ['deliveries', 'replay', '--workspace', workspaceId, '--endpoint', endpoint.id];
    const refused = await runCli(args); // without ALLOW_PRIVATE_TARGETS, unlike the worker
    expect(refused.code).to.equal(1);
    const [summary, ...failures] = refused.stdout.trimEnd().split('\n');
    expect(summary).to.equal('replayed 2 messages: 0 succeeded, 2 failed');
    expect(failures).to.have.length(2);
    for (const line of failures)
      expect(line).to.match(new RegExp(`^  msg_\\w+ to ${receiver().url}: .*private`));
    expect(refused.stderr).to.contain('ALLOW_PRIVATE_TARGETS');
    const json = JSON.parse((await runCli([...args, '--json'])).stdout);
    expect(json).to.include({ total: 2, succeeded: 0, failed: 2, notSent: 0, interrupted: null });
    expect(json.failures[0]).to.include({
      endpointId: endpoint.id,
      url: receiver().url,
      responseStatus: null,
    });
    expect(receiver().requests).to.have.length(2);
  });

  it('replay --dry-run reports what it leaves out, in the columns of deliveries list', async () => {
    const { client, workspaceId, endpoint } = await deliveredWorkspace(receiver().url, 1);
    const other = await createEndpoint(client, workspaceId, {
      url: receiver().url,
      events: ['contact.created'],
    });
    await createContact(client, workspaceId);
    await waitForDeliveries(client, workspaceId, other.id, 1);
    const disabled = await client.patch(`${webhooksPath(workspaceId)}/${other.id}`, { active: false });
    expect(disabled.status, disabled.text).to.equal(200);

    const args = ['deliveries', 'replay', '--workspace', workspaceId, '--dry-run'];
    const dry = await cli(args);
    expect(dry.code, dry.stderr).to.equal(0);
    const lines = dry.stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(/^id\s+createdAt\s+endpointId\s+event\s+status$/);
    expect(lines.at(-1)).to.equal(
      'would replay 2 messages (dry run; nothing sent); 1 left out (endpoint disabled)',
    );
    const json = JSON.parse((await cli([...args, '--json'])).stdout);
    expect(json).to.include({ wouldReplay: 2, inactive: 1 });
    expect(Object.keys(json.messages[0]).sort()).to.deep.equal([
      'createdAt',
      'endpointId',
      'event',
      'id',
      'status',
    ]);
    expect(json.messages.map((message: { endpointId: string }) => message.endpointId)).to.deep.equal([
      endpoint.id,
      endpoint.id,
    ]);
  });

  it('replay without a filter needs --all or --yes, or a yes on the terminal', async () => {
    const { workspaceId } = await deliveredWorkspace(receiver().url, 1);
    const args = ['deliveries', 'replay', '--workspace', workspaceId];
    const refused = await cli(args);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain(
      'no filter given: this would send all 1 messages of the workspace again',
    );
    expect(refused.stderr).to.contain('--all');

    const declined = await runCliOnTerminal(args, [{ waitFor: '[y/N] ', type: 'n\r' }], ALLOW_PRIVATE);
    expect(declined.code).to.equal(1);
    expect(declined.stdout).to.contain(
      `No filter given: send all 1 messages of workspace ${workspaceId} again?`,
    );
    expect(declined.stdout).to.contain('replay cancelled; nothing was sent');
    expect(receiver().requests).to.have.length(1);

    const accepted = await runCliOnTerminal(args, [{ waitFor: '[y/N] ', type: 'y\r' }], ALLOW_PRIVATE);
    expect(accepted.code, accepted.stdout).to.equal(0);
    expect(accepted.stdout).to.contain('replayed 1 messages: 1 succeeded, 0 failed');
    for (const flag of ['--all', '--yes']) {
      const run = await cli([...args, flag]);
      expect(run.stdout, flag).to.equal('replayed 1 messages: 1 succeeded, 0 failed\n');
    }
    expect(receiver().requests).to.have.length(4);
  });

  it('replay stops on SIGTERM after the sends in flight and prints what was and was not sent', async () => {
    const { client, workspaceId, endpoint } = await deliveredWorkspace(receiver().url, 3);
    receiver().answer = () => ({ delayMs: 500 });
    const replay = startCli(['deliveries', 'replay', '--workspace', workspaceId, '--endpoint', endpoint.id], {
      env: { ...ALLOW_PRIVATE, WEBHOOK_CONCURRENCY: '1' },
    });
    await eventually(async () => (receiver().requests.length === 4 ? true : null));
    replay.child.kill('SIGTERM');
    const run = await replay.done;
    expect(run.code, run.stderr).to.equal(143);
    expect(run.stdout).to.equal(
      'interrupted by SIGTERM: replayed 1 of 3 messages: 1 succeeded, 0 failed; 2 not sent\n',
    );
    const records = await waitForDeliveries(client, workspaceId, endpoint.id, 4);
    expect(records.filter((record) => record.trigger === 'manual')).to.have.length(1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver().requests).to.have.length(4);
  });
});
