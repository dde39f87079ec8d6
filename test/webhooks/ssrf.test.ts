// SSRF refusals with private targets NOT allowed (the test server allows them, so these build the
// checking agent directly, or pass a configuration that forbids them). A local receiver stands in
// for the internal service an attacker would aim at: it must never see a request.
import type { LookupAddress } from 'node:dns';
import { expect } from 'chai';
import { config } from '../../src/config.ts';
import type { ValidationError } from '../../src/core/errors.ts';
import {
  createDeliveryHttp,
  type DeliveryHttp,
  guardedLookup,
  isPublicAddress,
  resolvePublicAddresses,
} from '../../src/net/ssrf.ts';
import { sendNow } from '../../src/webhooks/replay.ts';
import { sendAttempt } from '../../src/webhooks/sender.ts';
import { checkUrlAllowed } from '../../src/webhooks/service.ts';
import { expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { sql, testDb } from '../support/helpers.ts';
import { server } from '../support/server.ts';
import { createEndpoint, deliveries, type Receiver, startReceiver, webhooksPath } from './support.ts';

const SEND = { timeoutMs: 2000, userAgent: 'test' };

/** A resolver standing in for DNS: these names resolve to these addresses. */
function fakeDns(table: Record<string, string[]>) {
  return (
    hostname: string,
    callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => {
    const addresses = table[hostname];
    if (!addresses)
      return callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
}

function attempt(url: string) {
  return {
    attemptId: 'dlv_test',
    messageId: 'msg_test',
    event: 'ping',
    body: '{}',
    url,
    secrets: ['whsec_dGVzdA=='],
  };
}

describe('SSRF protection', () => {
  let receiver: Receiver;
  let guarded: DeliveryHttp;
  beforeEach(async () => {
    receiver = await startReceiver();
    guarded = createDeliveryHttp({
      allowPrivate: false,
      timeoutMs: 2000,
      resolve: fakeDns({
        'internal.test': ['10.1.2.3'],
        'mixed.test': ['93.184.216.34', '10.9.9.9'],
        'localhost.test': ['127.0.0.1'],
      }),
    });
  });
  afterEach(async () => {
    await guarded.agent.close();
    await receiver.close();
  });

  it('treats only public unicast addresses as public', () => {
    const refused = [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      '2001::1',
      'not an address',
    ];
    for (const address of refused) expect(isPublicAddress(address), address).to.equal(false);
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111'])
      expect(isPublicAddress(address), address).to.equal(true);
  });

  it('refuses every IPv6 form that embeds a private IPv4 address, and allows it when that address is public', () => {
    const embeddingPrivate = [
      '::127.0.0.1', // IPv4-compatible, ::/96
      '::7f00:1',
      '::a00:1',
      '::ffff:10.0.0.1', // IPv4-mapped
      '::ffff:0:7f00:1', // IPv4-translated (RFC 6145)
      '64:ff9b::7f00:1', // NAT64
      '64:ff9b::169.254.169.254',
      '64:ff9b:1::a00:1', // local-use NAT64, /96 position
      '64:ff9b:1:a00:1::', // … /48 position
      '2002:7f00:1::1', // 6to4
      '2001:0:7f00:1::', // Teredo server 127.0.0.1
      '2001:0:808:808:0:0:80ff:fffe', // Teredo client 127.0.0.1 (stored inverted)
    ];
    for (const address of embeddingPrivate) expect(isPublicAddress(address), address).to.equal(false);
    const embeddingPublic = [
      '::808:808',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2001:0:808:808:0:0:fefd:fcfb', // server 8.8.8.8, client 1.2.3.4
    ];
    for (const address of embeddingPublic) expect(isPublicAddress(address), address).to.equal(true);
  });

  it('resolves a host for any feature only when every address is public, saying nothing of which', async () => {
    const dnsTable = fakeDns({ 'public.test': ['93.184.216.34'], 'localhost.test': ['127.0.0.1'] });
    expect(await resolvePublicAddresses('public.test', dnsTable)).to.deep.equal([
      { address: '93.184.216.34', family: 4 },
    ]);
    for (const [host, message] of [
      ['localhost.test', 'blocked: private address'],
      ['[::7f00:1]', 'blocked: private address'],
      ['nowhere.test', 'could not resolve'],
    ]) {
      const refusal = await resolvePublicAddresses(host, dnsTable).then(
        () => null,
        (error: Error) => error.message,
      );
      expect(refusal, host).to.equal(message);
    }
  });

  for (const [label, url] of [
    ['loopback 127.0.0.1', (port: number) => `http://127.0.0.1:${port}/hooks`],
    ['loopback [::1]', (port: number) => `http://[::1]:${port}/hooks`],
    ['IPv4-mapped [::ffff:127.0.0.1]', (port: number) => `http://[::ffff:127.0.0.1]:${port}/hooks`],
    ['IPv4-compatible [::127.0.0.1]', (port: number) => `http://[::127.0.0.1]:${port}/hooks`],
    ['IPv4-compatible [::7f00:1]', (port: number) => `http://[::7f00:1]:${port}/hooks`],
    ['NAT64 [64:ff9b::7f00:1]', (port: number) => `http://[64:ff9b::7f00:1]:${port}/hooks`],
    ['decimal 2130706433 (127.0.0.1)', (port: number) => `http://2130706433:${port}/hooks`],
    ['metadata 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a hostname resolving to 10.x', (port: number) => `http://internal.test:${port}/hooks`],
    ['a hostname with one private address among public ones', (port: number) => `http://mixed.test:${port}/`],
    ['a hostname resolving to loopback', (port: number) => `http://localhost.test:${port}/hooks`],
    ['localhost through the system resolver', (port: number) => `http://localhost:${port}/hooks`],
  ] as const) {
    it(`refuses ${label}: a failed attempt saying "blocked: private address"`, async () => {
      const http = label.includes('system resolver')
        ? createDeliveryHttp({ allowPrivate: false, timeoutMs: 2000 })
        : guarded;
      const result = await sendAttempt(http, attempt(url(receiver.port)), SEND);
      if (http !== guarded) await http.agent.close();
      expect(result.success).to.equal(false);
      // Exactly this: neither the host nor what it resolved to.
      expect(result.error).to.equal('blocked: private address');
      expect(receiver.requests).to.have.length(0);
    });
  }

  it('records a name that does not resolve as "could not resolve", without the DNS error', async () => {
    const result = await sendAttempt(guarded, attempt('http://nowhere.test/hooks'), SEND);
    expect(result).to.include({ success: false, error: 'could not resolve' });
  });

  it('reaches the same receiver when private targets are allowed (the refusals are not accidents)', async () => {
    const open = createDeliveryHttp({ allowPrivate: true, timeoutMs: 2000 });
    const result = await sendAttempt(open, attempt(receiver.url), SEND);
    await open.agent.close();
    expect(result.success, String(result.error)).to.equal(true);
    expect(receiver.requests).to.have.length(1);
  });

  it('passes public addresses through the lookup in both single and all modes', async () => {
    const lookup = guardedLookup(fakeDns({ 'public.test': ['93.184.216.34', '2606:4700:4700::1111'] }));
    const single = await new Promise<string>((resolve, reject) =>
      lookup('public.test', { family: 4 }, (error, address) =>
        error ? reject(error) : resolve(address as string),
      ),
    );
    expect(single).to.equal('93.184.216.34');
    const all = await new Promise<unknown>((resolve, reject) =>
      lookup('public.test', { all: true }, (error, addresses) =>
        error ? reject(error) : resolve(addresses),
      ),
    );
    expect(all).to.have.length(2);
  });

  it('records a blocked attempt as a failed delivery when the deployment forbids private targets', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(client, workspaceId, {
      url: receiver.url,
      events: ['contact.created'],
    });
    const messageId = `msg_ssrf_${Date.now().toString(36)}`;
    await testDb().query(sql.unsafe`
      insert into webhook_messages (workspace_id, id, endpoint_id, event, body)
      values (${workspaceId}, ${messageId}, ${endpoint.id}, 'ping', '{}')`);
    const strict = { ...config(), ALLOW_PRIVATE_TARGETS: false };
    const { summary } = await sendNow(server().context.db, strict, '0.1.0', workspaceId, [messageId]);
    expect(summary).to.deep.equal({ total: 1, succeeded: 0, failed: 1 });
    const [record] = await deliveries(client, workspaceId, `&endpointId=${endpoint.id}`);
    expect(record.error).to.equal('blocked: private address');
    expect(record).to.include({ success: false, trigger: 'manual', responseStatus: null });
    expect(receiver.requests).to.have.length(0);
  });

  it('refuses private IP literals, names resolving to private addresses and (in production) plain http when endpoints are saved', async () => {
    const strict = { ...config(), ALLOW_PRIVATE_TARGETS: false, webhookAllowHttp: false };
    const dnsTable = fakeDns({
      'public.test': ['93.184.216.34'],
      'mixed.test': ['93.184.216.34', '10.9.9.9'],
    });
    const refusal = (url: string, settings = strict) =>
      checkUrlAllowed(settings, url, dnsTable).then(
        () => null,
        (error: ValidationError) => error.errors[0].message,
      );
    for (const url of [
      'https://10.0.0.1/hooks',
      'https://[::1]/hooks',
      'https://[::127.0.0.1]:8099/',
      'https://[::7f00:1]:8099/',
      'https://mixed.test/hooks',
    ])
      expect(await refusal(url), url)
        .to.contain('private')
        .and.contain('ALLOW_PRIVATE_TARGETS=true');
    expect(await refusal('http://public.test/hooks')).to.contain('https');
    expect(await refusal('https://public.test/hooks')).to.equal(null);
    // DNS may be published after the endpoint is saved: the send checks again.
    expect(await refusal('https://nowhere.test/hooks')).to.equal(null);
    expect(await refusal('http://public.test/x', { ...strict, webhookAllowHttp: true })).to.equal(null);
    expect(
      await refusal('http://10.0.0.1/x', { ...strict, ALLOW_PRIVATE_TARGETS: true, webhookAllowHttp: true }),
    ).to.equal(null);
  });

  describe('saving through the API with private targets not allowed', () => {
    const settings = () => server().context.config;
    beforeEach(() => {
      settings().ALLOW_PRIVATE_TARGETS = false;
    });
    afterEach(() => {
      settings().ALLOW_PRIVATE_TARGETS = true;
    });

    it('refuses localhost at save, as the send would, naming ALLOW_PRIVATE_TARGETS', async () => {
      const { client, workspaceId } = await workspaceWithAdmin();
      for (const url of [
        `http://localhost:${receiver.port}/hooks`,
        `http://127.0.0.1:${receiver.port}/hooks`,
      ]) {
        const refused = expectProblem(
          await client.post(webhooksPath(workspaceId), { url }),
          400,
        ) as unknown as {
          errors: { path: string; message: string }[];
        };
        expect(refused.errors[0].path, url).to.equal('body.url');
        expect(refused.errors[0].message, url).to.contain('ALLOW_PRIVATE_TARGETS=true');
      }
      settings().ALLOW_PRIVATE_TARGETS = true;
      const endpoint = await createEndpoint(client, workspaceId, { url: 'https://hooks.example.com/in' });
      settings().ALLOW_PRIVATE_TARGETS = false;
      const patched = await client.patch(`${webhooksPath(workspaceId)}/${endpoint.id}`, {
        url: `http://localhost:${receiver.port}/hooks`,
      });
      expect(expectProblem(patched, 400)).to.have.nested.property('errors[0].path', 'body.url');
      const [stored] = (await client.get(webhooksPath(workspaceId))).body as { url: string }[];
      expect(stored.url).to.equal('https://hooks.example.com/in');
    });
  });
});
