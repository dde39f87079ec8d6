import { userInfo } from 'node:os';
import { expect } from 'chai';
import { FEATURES } from '../../src/app/features.ts';
import { auditRetention } from '../../src/audit/retention.ts';
import { pruneTable } from '../../src/db/retention.ts';
import { runCli } from '../support/cli.ts';
import { Client } from '../support/client.ts';
import { expectProblem, keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf, sql, testDb } from '../support/helpers.ts';
import { server } from '../support/server.ts';
import { auditOf, auditPath, type Entry, entryCount } from './support.ts';

/** Seven changes: three keys made, two segments made, one key revoked, one segment deleted. */
async function sevenChanges(admin: Client, workspaceId: string) {
  const base = `/api/workspaces/${workspaceId}`;
  const keys = [];
  for (const name of ['a', 'b', 'c'])
    keys.push((await admin.post(`${base}/keys`, { name, scopes: ['contacts:read'] })).body.id as string);
  const segments = [];
  for (const name of ['s1', 's2'])
    segments.push(
      (await admin.post(`${base}/segments`, { name, rules: { attribute: 'plan', op: 'eq', value: name } }))
        .body.id as string,
    );
  await admin.delete(`${base}/keys`, { keyId: keys[0] });
  await admin.delete(`${base}/segments/${segments[0]}`);
  return { keys, segments };
}

describe('Audit log: the API', () => {
  it('pages newest first with beforeId, every entry once', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    await sevenChanges(client, workspaceId);
    const everything = await auditOf(client, workspaceId);
    expect(everything).to.have.length(7);
    expect(everything.map((entry) => entry.id)).to.deep.equal(
      everything
        .map((entry) => entry.id)
        .sort()
        .reverse(),
    );
    const seen: Entry[] = [];
    let beforeId: string | undefined;
    for (;;) {
      const page = await auditOf(client, workspaceId, { limit: '3', ...(beforeId ? { beforeId } : {}) });
      seen.push(...page);
      if (page.length < 3) break;
      beforeId = page[page.length - 1].id;
    }
    expect(seen.map((entry) => entry.id)).to.deep.equal(everything.map((entry) => entry.id));
  });

  it('filters by action or its kind, actor, target and time range', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const { keys, segments } = await sevenChanges(client, workspaceId);
    const actions = async (query: Record<string, string>) =>
      (await auditOf(client, workspaceId, query)).map((entry) => entry.action);
    expect(await actions({ action: 'apiKey' })).to.deep.equal([
      'apiKey.revoked',
      'apiKey.created',
      'apiKey.created',
      'apiKey.created',
    ]);
    expect(await actions({ action: 'apiKey.created' })).to.have.length(3);
    expect(await actions({ action: 'segment.deleted' })).to.deep.equal(['segment.deleted']);
    expect(await actions({ targetType: 'segment', targetId: segments[0] })).to.deep.equal([
      'segment.deleted',
      'segment.created',
    ]);
    expect(await actions({ targetId: keys[0] })).to.deep.equal(['apiKey.revoked', 'apiKey.created']);
    expect(await actions({ actorId: user.id })).to.have.length(7);
    expect(await actions({ actorType: 'user' })).to.have.length(7);
    expect(await actions({ actorType: 'cli' })).to.deep.equal([]);
    const all = await auditOf(client, workspaceId);
    const middle = all[3].createdAt;
    const since = await auditOf(client, workspaceId, { since: middle });
    const until = await auditOf(client, workspaceId, { until: middle });
    expect(since.length + until.length).to.equal(7);
    expect(since.every((entry) => entry.createdAt >= middle)).to.equal(true);
    expect(await actions({ since: '2999-01-01T00:00:00Z' })).to.deep.equal([]);
  });

  it('refuses a bad filter with a 400 naming it', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    for (const [query, path] of [
      ['action=nothing', 'query.action'],
      ['action=apiKey.exploded', 'query.action'],
      ['action=%25', 'query.action'],
      ['beforeId=nope', 'query.beforeId'],
      ['limit=201', 'query.limit'],
      ['since=yesterday', 'query.since'],
      ['since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 'query.until'],
      ['actorType=robot', 'query.actorType'],
    ]) {
      const response = await client.get(`${auditPath(workspaceId)}?${query}`);
      expectProblem(response, 400);
      expect(
        response.body.errors.map((error: { path: string }) => error.path),
        query,
      ).to.include(path);
    }
  });

  it("is for ADMINs: a MEMBER gets 403, an API key 403, another workspace's ADMIN 404, nobody 401", async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    await client.post(`/api/workspaces/${workspaceId}/keys`, { name: 'x', scopes: ['contacts:read'] });
    const member = await memberOf(client, workspaceId, 'MEMBER');
    expectProblem(await member.client.get(auditPath(workspaceId)), 403);
    const { client: keyed } = await keyClient(client, workspaceId, ['contacts:read', 'webhooks:read']);
    expectProblem(await keyed.get(auditPath(workspaceId)), 403);
    const other = await workspaceWithAdmin();
    expectProblem(await other.client.get(auditPath(workspaceId)), 404);
    expect(await auditOf(other.client, other.workspaceId)).to.deep.equal([]);
    expectProblem(await new Client().get(auditPath(workspaceId)), 401);
  });

  it('retention: the pruning job deletes entries older than RETENTION_AUDIT_LOG_MS and keeps the rest', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    await sevenChanges(client, workspaceId);
    await testDb().query(sql.unsafe`
      update audit_entries set created_at = now() - interval '400 days'
      where workspace_id = ${workspaceId} and action = 'apiKey.created'`);
    expect(FEATURES.flatMap((feature) => feature.retention ?? [])).to.include.members(auditRetention);
    const config = { ...server().context.config, RETENTION_AUDIT_LOG_MS: 365 * 86_400_000 };
    const options = { batchSize: 100, pauseMs: 0, deadline: Date.now() + 60_000 };
    expect(await pruneTable(testDb(), auditRetention[0], config, options)).to.be.at.least(3);
    expect(await entryCount(workspaceId)).to.equal(4);
    expect((await auditOf(client, workspaceId, { action: 'apiKey.created' })).length).to.equal(0);
  });

  it('the CLI records its changes as "cli" with the operating-system user, and lists them', async function () {
    this.timeout(120_000); // five CLI processes, each starting Node and connecting
    const { client, workspaceId } = await workspaceWithAdmin();
    const made = await runCli(
      [
        'keys',
        'create',
        '--workspace',
        workspaceId,
        '--name',
        'From CLI',
        '--scopes',
        'contacts:read',
        '--json',
      ],
      {},
    );
    expect(made.code, made.stderr).to.equal(0);
    const [entry] = await auditOf(client, workspaceId);
    expect(entry.action).to.equal('apiKey.created');
    expect(entry.actor).to.deep.equal({ type: 'cli', id: null, name: userInfo().username });
    expect(entry.origin).to.deep.equal({ ip: null, userAgent: null });

    const listed = await runCli(['audit', '--workspace', workspaceId, '--action', 'apiKey', '--json']);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout).map((row: Entry) => row.id)).to.deep.equal([entry.id]);
    const text = await runCli(['audit', '--workspace', workspaceId]);
    expect(text.stdout).to.match(/apiKey\.created .*cli \(/);
    const bad = await runCli(['audit', '--workspace', workspaceId, '--action', 'nothing']);
    expect([bad.code, bad.stderr]).to.deep.equal([
      1,
      'error: --action: names no action the audit log records (see the description for the list)\n',
    ]);
    const unknown = await runCli(['audit', '--workspace', 'ws_nope']);
    expect(unknown.code).to.equal(1);
  });
});
