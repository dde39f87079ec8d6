// One suite for every workspace route, discovered from the served OpenAPI document, so routes
// added by later features are covered without touching this file. Each check calls every
// operation whose path has {workspaceId} and collects every mismatch into one failure message.
import { expect } from 'chai';
import { SCOPES } from '../../src/http/scopes.ts';
import { Client, type TestResponse } from '../support/client.ts';
import { keyClient, signedInUser, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { fillPath, type Operation, operationsOf } from '../support/openapiOperations.ts';

type WorkspaceOperation = { method: string; path: string; operation: Operation };

let operations: WorkspaceOperation[] = [];

function call(client: Client, entry: WorkspaceOperation, workspaceId: string): Promise<TestResponse> {
  const body = entry.operation.requestBody ? {} : undefined;
  return client.request(entry.method.toUpperCase(), fillPath(entry.path, workspaceId), { json: body });
}

/** Calls every operation and lists those whose answer is not `status` problem+json (and `check`). */
async function mismatches(
  client: (entry: WorkspaceOperation) => Client,
  workspaceId: string,
  status: number,
  check: (response: TestResponse, entry: WorkspaceOperation) => boolean = () => true,
): Promise<string[]> {
  const found: string[] = [];
  for (const entry of operations) {
    const response = await call(client(entry), entry, workspaceId);
    const problem = response.headers.get('content-type')?.startsWith('application/problem+json');
    if (response.status !== status || !problem || !check(response, entry)) {
      found.push(
        `${entry.method.toUpperCase()} ${entry.path} → ${response.status} ${response.text.slice(0, 160)}`,
      );
    }
  }
  return found;
}

const acceptsKeys = (entry: WorkspaceOperation) =>
  (entry.operation.security ?? []).some((requirement) => 'bearerKey' in requirement);

describe('workspace access on every workspace route (from the OpenAPI document)', () => {
  before(async () => {
    const document = (await new Client().get('/api/openapi')).body;
    // Routes that declare no security (none today) are public by design and not workspace-guarded.
    operations = operationsOf(document).filter(
      ({ path, operation }) => path.includes('{workspaceId}') && (operation.security ?? []).length > 0,
    );
  });

  it('finds the workspace routes, the foundation’s included', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids).to.include.members([
      'workspaces.get',
      'members.list',
      'members.add',
      'keys.list',
      'keys.revoke',
    ]);
  });

  it('declares x-required-role on every workspace operation', () => {
    const missing = operations.filter(
      ({ operation }) => !['ADMIN', 'MEMBER'].includes(operation['x-required-role'] ?? ''),
    );
    expect(missing.map(({ operation }) => operation.operationId)).to.deep.equal([]);
  });

  it('refuses a MEMBER session 403 exactly where x-required-role is ADMIN', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const member = await memberOf(admin, workspaceId, 'MEMBER');
    // Leaving ends the membership, so it goes last.
    const ordered = [...operations].sort(
      (a, b) =>
        Number(a.operation.operationId === 'workspaces.leave') -
        Number(b.operation.operationId === 'workspaces.leave'),
    );
    const wrong: string[] = [];
    for (const entry of ordered) {
      const response = await call(member.client, entry, workspaceId);
      const adminOnly = entry.operation['x-required-role'] === 'ADMIN';
      if ((response.status === 403) !== adminOnly)
        wrong.push(
          `${entry.operation.operationId} (${entry.operation['x-required-role']}) → ${response.status}`,
        );
    }
    expect(wrong).to.deep.equal([]);
  });

  it('answers 404 to a signed-in user who is not a member', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    const outsider = await signedInUser('Outsider');
    expect(await mismatches(() => outsider.client, workspaceId, 404)).to.deep.equal([]);
  });

  it('answers 404 for a workspace that does not exist', async () => {
    const { client } = await signedInUser();
    expect(await mismatches(() => client, 'ws_01JD2Z3K4M5N6P7Q8R9S0T1V2W', 404)).to.deep.equal([]);
  });

  it('answers 401 to a valid API key of another workspace, whatever its scopes', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    const other = await workspaceWithAdmin();
    const { client } = await keyClient(other.client, other.workspaceId, [...SCOPES]);
    expect(await mismatches(() => client, workspaceId, 401)).to.deep.equal([]);
  });

  it('answers 401 without credentials', async () => {
    const { workspaceId } = await workspaceWithAdmin();
    expect(await mismatches(() => new Client(), workspaceId, 401)).to.deep.equal([]);
  });

  it('answers 403 to a key of the workspace on routes that refuse keys, whatever its scopes', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const { client } = await keyClient(admin, workspaceId, [...SCOPES]);
    const all = operations;
    operations = all.filter((entry) => !acceptsKeys(entry));
    try {
      expect(operations.length).to.be.greaterThan(0);
      expect(await mismatches(() => client, workspaceId, 403)).to.deep.equal([]);
    } finally {
      operations = all;
    }
  });

  it('answers 403 naming the scope to a key of the workspace that lacks it', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const all = operations;
    operations = all.filter(acceptsKeys);
    const keys = new Map<string, Client>();
    for (const scope of new Set(operations.map((entry) => entry.operation['x-required-scope'] as string))) {
      const others = SCOPES.filter((candidate) => candidate !== scope);
      keys.set(scope, (await keyClient(admin, workspaceId, others)).client);
    }
    try {
      const needed = (entry: WorkspaceOperation) => entry.operation['x-required-scope'] as string;
      const found = await mismatches(
        (entry) => keys.get(needed(entry)) as Client,
        workspaceId,
        403,
        (response, entry) => String(response.body?.detail).includes(needed(entry)),
      );
      expect(found).to.deep.equal([]);
    } finally {
      operations = all;
    }
  });
});
