import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { entryCount, expectUser, onlyEntry, storedText } from './support.ts';

describe('Audit log: API keys, publishable keys and the identity secret', () => {
  it('records apiKey.created by the signed-in user, with the masked key and never the key', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const created = await client.post(
      `/api/workspaces/${workspaceId}/keys`,
      { name: 'CRM sync', scopes: ['contacts:read'] },
      { headers: { 'user-agent': 'audit-test/1.0' } },
    );
    expect(created.status, created.text).to.equal(201);
    const entry = await onlyEntry(client, workspaceId, 'apiKey.created');
    expectUser(entry, user);
    expect(entry.origin.userAgent).to.equal('audit-test/1.0');
    expect(entry.target).to.deep.equal({ type: 'apiKey', id: created.body.id });
    expect(entry.before).to.equal(null);
    expect(entry.after).to.include({ id: created.body.id, name: 'CRM sync' });
    expect(entry.after.scopes).to.deep.equal(['contacts:read']);
    const stored = await storedText(workspaceId);
    expect(stored).not.to.include(created.body.key);
    expect(stored).not.to.include(created.body.key.slice(7, -4));
  });

  it('records apiKey.revoked; revoking an unknown key is 404 and records nothing', async () => {
    const { client, user, workspaceId } = await workspaceWithAdmin();
    const { keyId } = await keyClient(client, workspaceId, ['contacts:read']);
    const before = await entryCount(workspaceId);
    const unknown = await client.delete(`/api/workspaces/${workspaceId}/keys`, { keyId: 'key_nope' });
    expect(unknown.status).to.equal(404);
    expect(await entryCount(workspaceId)).to.equal(before);
    const revoked = await client.delete(`/api/workspaces/${workspaceId}/keys`, { keyId });
    expect(revoked.status, revoked.text).to.equal(204);
    const entry = await onlyEntry(client, workspaceId, 'apiKey.revoked');
    expectUser(entry, user);
    expect(entry.target).to.deep.equal({ type: 'apiKey', id: keyId });
  });

  it('names the API key (id and name) when a key makes the change', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const created = await client.post(`/api/workspaces/${workspaceId}/keys`, {
      name: 'Provisioner',
      scopes: ['segments:write'],
    });
    const keyed = new Client(created.body.key);
    const segment = await keyed.post(`/api/workspaces/${workspaceId}/segments`, {
      name: 'Keyed',
      rules: { attribute: 'plan', op: 'eq', value: 'pro' },
    });
    expect(segment.status, segment.text).to.equal(201);
    const entry = await onlyEntry(client, workspaceId, 'segment.created');
    expect(entry.actor).to.deep.equal({ type: 'apiKey', id: created.body.id, name: 'Provisioner' });
  });
});
