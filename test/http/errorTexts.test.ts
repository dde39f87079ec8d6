// Every validation message speaks one plain voice ("must be at most 200", "is required"), never
// the validator's own phrases; one message per field; one rule for empty query values.
import { expect } from 'chai';
import { createContact } from '../events/support.ts';
import type { TestResponse } from '../support/client.ts';
import { expectProblem, workspaceWithAdmin } from '../support/factories.ts';

function errorsOf(response: TestResponse): { path: string; message: string }[] {
  expectProblem(response, 400);
  return response.body.errors;
}

const VALIDATOR_PHRASES =
  /Too (big|small)|Invalid (input|option|ISO|email|discriminator)|expected .* received|>=|<=/;

describe('validation messages', () => {
  it('names each limit and type in plain words', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/api/workspaces/${workspaceId}`;
    expect(errorsOf(await client.get(`${base}/events?limit=500`))).to.deep.equal([
      { path: 'query.limit', message: 'must be at most 200' },
    ]);
    expect(errorsOf(await client.get(`${base}/events?limit=abc`))).to.deep.equal([
      { path: 'query.limit', message: 'must be a number' },
    ]);
    expect(errorsOf(await client.put(`${base}/scoring-settings`, {}))).to.deep.equal([
      { path: 'body.decay', message: 'is required' },
    ]);
    expect(
      errorsOf(await client.post(`${base}/scoring-rules`, { name: 5, eventType: 'x', points: 1.5 })),
    ).to.deep.equal([
      { path: 'body.name', message: 'must be a string' },
      { path: 'body.points', message: 'must be a whole number' },
    ]);
    expect(
      errorsOf(await client.post(`${base}/members`, { email: 'a@example.com', role: 'OWNER' })),
    ).to.deep.equal([{ path: 'body.role', message: 'must be one of: "ADMIN", "MEMBER"' }]);
  });

  it('gives one message per field (a bad timestamp is not also "before the year 1")', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    expect(
      errorsOf(await client.get(`/api/workspaces/${workspaceId}/events?before=yesterday`)),
    ).to.deep.equal([{ path: 'query.before', message: 'must be an ISO 8601 timestamp' }]);
  });

  it('leaks no validator phrase for hostile bodies on the main writes', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/api/workspaces/${workspaceId}`;
    const bodies: [string, string, unknown][] = [
      ['POST', `${base}/contacts`, { email: 5, attributes: [] }],
      ['POST', `${base}/events`, {}],
      ['POST', `${base}/events`, { type: 'x'.repeat(300), metadata: 'no' }],
      ['POST', `${base}/segments`, { name: '', rules: { field: 'nope' } }],
      ['POST', `${base}/campaigns`, { name: 'C', trigger: { type: 'sometimes' }, steps: [] }],
      ['POST', `${base}/webhooks`, { url: 'not a url', direction: 'SIDEWAYS' }],
      ['POST', `${base}/keys`, { name: '', scopes: ['nope'], expiresAt: 'soon' }],
      ['PUT', `${base}/scoring-settings`, { decay: { points: 'x', every: 5 } }],
    ];
    const leaks: string[] = [];
    for (const [method, path, body] of bodies) {
      const response = await client.request(method, path, { json: body });
      for (const error of errorsOf(response))
        if (VALIDATOR_PHRASES.test(error.message))
          leaks.push(`${method} ${path} ${error.path}: ${error.message}`);
    }
    expect(leaks).to.deep.equal([]);
  });

  it('answers 400 "nothing to change" for an empty contact PATCH, as every other PATCH does', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/api/workspaces/${workspaceId}`;
    const contact = await createContact(client, base, {});
    const response = await client.patch(`${base}/contacts/${contact.id}`, {});
    const [error] = errorsOf(response);
    expect(error.path).to.equal('body');
    expect(error.message).to.match(/^nothing to change: send at least one of email, /);
  });

  it('treats an empty query value as absent, on every parameter alike', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/api/workspaces/${workspaceId}`;
    for (const path of [
      `${base}/contacts?page=&limit=`,
      `${base}/events?type=&limit=`,
      `${base}/segments?page=`,
    ]) {
      const response = await client.get(path);
      expect(response.status, `${path}: ${response.text}`).to.equal(200);
    }
  });
});
