// A PostgreSQL restart under load (what a managed database's maintenance or failover does) fails
// the requests it cuts off with 503 + Retry-After and nothing else: the process keeps running, the
// pools reconnect, and every event the API acknowledged is stored.
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { startOwnService } from '../support/ownDatabase.ts';

const CONNECTIONS = 50;

type Outcome = { status: number; id?: string; retryAfter: string | null; type: string | null };

async function postEvent(baseUrl: string, key: string, workspaceId: string, n: number): Promise<Outcome> {
  try {
    const response = await fetch(`${baseUrl}/api/workspaces/${workspaceId}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'load', email: `load${n % 200}@example.com`, metadata: { n } }),
    });
    const body = await response.json();
    return {
      status: response.status,
      id: body.id,
      retryAfter: response.headers.get('retry-after'),
      type: response.headers.get('content-type'),
    };
  } catch {
    return { status: 0, retryAfter: null, type: null }; // the connection to the web process failed
  }
}

describe('database restart under load', function () {
  this.timeout(90_000);

  it('answers 503 with Retry-After while PostgreSQL restarts, then 201 again, storing every acknowledged event', async () => {
    const service = await startOwnService();
    try {
      const { key, workspaceId } = await service.apiKey(['events:write']);
      const outcomes: Outcome[] = [];
      let running = true;
      let sent = 0;
      const loop = async () => {
        while (running) outcomes.push(await postEvent(service.baseUrl, key, workspaceId, sent++));
      };
      const loops = Array.from({ length: CONNECTIONS }, loop);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await service.restartDatabase();
      const restarted = Date.now();
      let recovered: number | null = null;
      while (recovered === null && Date.now() - restarted < 10_000) {
        const outcome = await postEvent(service.baseUrl, key, workspaceId, sent++);
        outcomes.push(outcome);
        if (outcome.status === 201) recovered = Date.now() - restarted;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      running = false;
      await Promise.all(loops);

      expect(recovered, 'a 201 within 10 s of the restart').to.not.equal(null);
      const failed = outcomes.filter((outcome) => outcome.status !== 201);
      for (const outcome of failed) {
        expect(outcome.status, JSON.stringify(outcome)).to.equal(503);
        expect(outcome.type).to.match(/^application\/problem\+json/);
        expect(Number(outcome.retryAfter)).to.be.at.least(1);
      }
      const acknowledged = outcomes.filter((outcome) => outcome.status === 201).map((outcome) => outcome.id);
      expect(acknowledged.length).to.be.above(CONNECTIONS);
      const stored = await service.context.db.anyFirst(
        sql.unsafe`select id from events where workspace_id = ${workspaceId}`,
      );
      const missing = acknowledged.filter((id) => !stored.includes(id));
      expect(missing, 'acknowledged events not stored').to.deep.equal([]);
    } finally {
      await service.stop();
    }
  });
});
