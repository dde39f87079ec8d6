// What keeps one workspace from stalling the others through segments: the cap on segments per
// workspace, computation in the worker (never in the request), and each workspace's share of the
// query pool. (The cost limits on rule trees are in validation.test.ts.)
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { createContact, whileLocked, workspace } from '../events/support.ts';
import { expectDocumented } from '../support/documented.ts';
import { keyClient } from '../support/factories.ts';
import { server, startSecondWeb } from '../support/server.ts';

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('segments: limits that protect other workspaces', function () {
  this.timeout(120_000);

  it('caps segments per workspace, even for concurrent creations (409 naming the cap)', async () => {
    const ctx = await workspace();
    const cap = server().context.config.SEGMENTS_PER_WORKSPACE;
    const rules = { field: 'email', op: 'exists' };
    // Up to three short of the cap one by one, then eight at once: three fit, five are refused.
    const answers = [];
    for (let n = 0; n < cap - 3; n++) {
      answers.push(await ctx.admin.post(`${ctx.base}/segments`, { name: `S${n}`, rules }));
    }
    answers.push(
      ...(await Promise.all(
        Array.from({ length: 8 }, (_, n) => ctx.admin.post(`${ctx.base}/segments`, { name: `T${n}`, rules })),
      )),
    );
    expect(answers.filter((answer) => answer.status === 201)).to.have.length(cap);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => answer.status)).to.deep.equal([409, 409, 409, 409, 409]);
    expect(refused[0].body.detail).to.contain(`${cap} segments, the most a workspace may have`);
    await expectDocumented('post', '/api/workspaces/{workspaceId}/segments', refused[0]);
    const listed = await ctx.admin.get(`${ctx.base}/segments?limit=1`);
    expect(listed.body.total).to.equal(cap);
    // Deleting one makes room again.
    const first = answers.find((answer) => answer.status === 201)!;
    expect((await ctx.admin.delete(`${ctx.base}/segments/${first.body.id}`)).status).to.equal(204);
    expect((await ctx.admin.post(`${ctx.base}/segments`, { name: 'Again', rules })).status).to.equal(201);
  });

  it("keeps another workspace's requests fast while a workspace's heavy segments compute", async () => {
    const heavy = await workspace();
    // 5,000 contacts with 20 purchases each: the shape of the report, set up in bulk.
    await server().context.db.query(sql.typeAlias('void')`
      with inserted as (
        insert into contacts (workspace_id, id, email, attributes)
        select ${heavy.workspaceId}, 'ct_heavy_' || lpad(n::text, 5, '0'), 'heavy' || n || '@example.com', '{}'
        from generate_series(1, 5000) as n returning id
      )
      insert into events (workspace_id, id, contact_id, type, metadata)
      select ${heavy.workspaceId}, 'evt_' || inserted.id || '_' || k, inserted.id, 'purchase',
        jsonb_build_object('tags', jsonb_build_array('a', 'b', 'c'), 'amount', k)
      from inserted, generate_series(1, 20) as k
    `);
    await server().context.db.query(sql.unsafe`analyze contacts, events`);
    const other = await workspace();
    await createContact(other.admin, other.base, { email: 'calm@example.com' });

    // The heaviest tree the limits allow, created ten times at once.
    const where = [
      { path: 'tags', op: 'not_contains', value: 'zz1' },
      { path: 'tags', op: 'not_contains', value: 'zz2' },
    ];
    const rules = { any: Array(10).fill({ event: 'purchase', count: { gte: 1_000_000 }, where }) };
    const creating = Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        heavy.admin.post(`${heavy.base}/segments`, { name: `H${n}`, rules }),
      ),
    );
    let slowest = 0;
    for (let round = 0; round < 5; round++) {
      const { value, ms } = await timed(() => other.admin.get(`${other.base}/contacts`));
      expect(value.status).to.equal(200);
      slowest = Math.max(slowest, ms);
    }
    // A generous bound: with the computation in the requests, these waited for the whole pool.
    expect(slowest).to.be.below(1_000);
    const created = await creating;
    for (const answer of created) {
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body.status).to.equal('computing');
    }
    const computing = await server().context.db.oneFirst(sql.unsafe`
      select count(*)::int from segments where workspace_id = ${heavy.workspaceId} and status = 'computing'
    `);
    expect(computing, 'measured while the segments compute').to.be.above(0);
    // Deleting them drops the rest of their pages (each later page finds its segment gone).
    for (const answer of created) await heavy.admin.delete(`${heavy.base}/segments/${answer.body.id}`);
  });

  it("limits one workspace to its share of the pool: past it, 503 with Retry-After, and others' requests pass", async () => {
    const web = await startSecondWeb({
      DATABASE_POOL_SIZE: 4,
      WORKSPACE_POOL_SHARE: 2,
      WORKSPACE_POOL_WAIT_MS: 300,
    });
    try {
      const busy = await workspace();
      const calm = await workspace();
      const busyKey = (await keyClient(busy.admin, busy.workspaceId, ['contacts:write'])).key;
      const calmKey = (await keyClient(calm.admin, calm.workspaceId, ['contacts:read'])).key;
      const held = await createContact(busy.admin, busy.base, { email: 'held@example.com' });
      const call = (key: string, path: string, init: RequestInit = {}) =>
        fetch(`${web.url}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        });
      const { patches, calmList } = await whileLocked(held.id, async () => {
        // Four updates of a locked contact: two hold the workspace's share, waiting on the lock.
        const patches = Array.from({ length: 4 }, (_, n) =>
          call(busyKey, `${busy.base}/contacts/${held.id}`, {
            method: 'PATCH',
            body: JSON.stringify({ firstName: `N${n}` }),
          }),
        );
        // The other two wait for it, in vain.
        await new Promise<void>((resolve) => {
          let settled = 0;
          for (const patch of patches) patch.then(() => ++settled === 2 && resolve());
        });
        const calmList = await timed(() => call(calmKey, `${calm.base}/contacts`));
        return { patches, calmList };
      });
      expect(calmList.value.status).to.equal(200);
      expect(calmList.ms).to.be.below(1_000);
      const answers = await Promise.all(patches);
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 200, 503, 503]);
      const refused = answers.find((answer) => answer.status === 503)!;
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(refused.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const text = await refused.text();
      const answer = { status: 503, headers: refused.headers, body: JSON.parse(text), text };
      expect(answer.body.detail).to.contain('already has 2 requests or jobs using the database');
      await expectDocumented('patch', '/api/workspaces/{workspaceId}/contacts/{contactId}', answer);
    } finally {
      await web.stop();
    }
  });
});
