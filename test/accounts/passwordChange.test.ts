import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { expectProblem, PASSWORD, signedInUser, workspaceWithAdmin } from '../support/factories.ts';
import { signIn } from '../support/helpers.ts';
import { server } from '../support/server.ts';

const NEW_PASSWORD = 'a new horse battery';

describe('changing one’s password', () => {
  it('changes it with the current one: this session stays, the others end', async () => {
    const { client, user } = await signedInUser();
    const { client: other } = await signIn(user.email);
    expect((await other.get('/api/auth/session')).status).to.equal(200);
    const changed = await client.post('/api/auth/password', {
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(changed.status, changed.text).to.equal(204);
    expect((await client.get('/api/auth/session')).status).to.equal(200);
    expectProblem(await other.get('/api/auth/session'), 401);
    expectProblem((await signIn(user.email, PASSWORD)).response, 401);
    expect((await signIn(user.email, NEW_PASSWORD)).response.status).to.equal(200);
  });

  it('refuses a wrong current password (400 naming it) and changes nothing', async () => {
    const { client, user } = await signedInUser();
    const refused = await client.post('/api/auth/password', {
      currentPassword: 'not the password',
      newPassword: NEW_PASSWORD,
    });
    const problem = expectProblem(refused, 400) as unknown as { errors: { path: string }[] };
    expect(problem.errors.map((error) => error.path)).to.deep.equal(['body.currentPassword']);
    expect((await signIn(user.email, PASSWORD)).response.status).to.equal(200);
  });

  it('answers 400 for a missing or too short new password, 401 without a session, 403 to an API key', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    for (const body of [
      { currentPassword: PASSWORD },
      { currentPassword: PASSWORD, newPassword: 'short' },
      {},
    ])
      expectProblem(await client.post('/api/auth/password', body), 400);
    const body = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
    expectProblem(await new Client().post('/api/auth/password', body), 401);
    const key = await client.post(`/api/workspaces/${workspaceId}/keys`, {
      name: 'k',
      scopes: ['contacts:read'],
    });
    expectProblem(await new Client(key.body.key).post('/api/auth/password', body), 403);
  });

  it('counts wrong current passwords against the account’s sign-in limit (429)', async function () {
    this.timeout(20_000);
    const { client } = await signedInUser();
    const wrong = { currentPassword: 'not the password', newPassword: NEW_PASSWORD };
    const limit = server().context.config.SIGNIN_MAX_FAILURES_PER_EMAIL;
    for (let attempt = 0; attempt < limit; attempt++)
      expectProblem(await client.post('/api/auth/password', wrong), 400);
    const limited = await client.post('/api/auth/password', wrong);
    expectProblem(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
  });
});
