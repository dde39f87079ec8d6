// A receiver that never answers holds only its own share of the worker's delivery slots
// (WEBHOOK_ENDPOINT_CONCURRENCY): the other endpoints' deliveries go on at once, and the hanging
// endpoint's attempts end at WEBHOOK_TIMEOUT_MS. On a service of its own, so the hanging endpoint
// does not take slots of the shared test server's worker.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { emitMany } from '../../src/outbox/emit.ts';
import { createEndpoint } from '../../src/webhooks/service.ts';
import { eventually } from '../support/factories.ts';
import { type OwnService, startOwnService } from '../support/ownDatabase.ts';
import { startReceiver } from './support.ts';

const EVENTS = 40;
const TIMEOUT_MS = 4_000;

/** Accepts requests and never answers them. */
async function startHangingReceiver() {
  const server: Server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('per-endpoint delivery concurrency', function () {
  this.timeout(60_000);
  let service: OwnService;
  before(async () => {
    service = await startOwnService({
      WEBHOOK_CONCURRENCY: 8,
      WEBHOOK_ENDPOINT_CONCURRENCY: 4,
      WEBHOOK_TIMEOUT_MS: TIMEOUT_MS,
    });
  });
  after(async () => {
    await service?.stop();
  });

  it('delivers to a healthy endpoint at once while another endpoint hangs, and times the hanging one out', async () => {
    const { db, config } = service.context;
    const healthy = await startReceiver();
    const hanging = await startHangingReceiver();
    try {
      await db.query(sql.unsafe`insert into workspaces (id, name) values ('ws_hang', 'Hanging')`);
      const endpoint = (url: string) =>
        createEndpoint(db, config, 'ws_hang', { url, direction: 'OUTBOUND', active: true, signed: true });
      const stuck = await endpoint(hanging.url);
      await endpoint(healthy.url);
      const events = Array.from({ length: EVENTS }, (_, n) => ({
        workspaceId: 'ws_hang',
        type: 'contact.created' as const,
        data: { contactId: `ct_${n}`, n },
      }));
      const started = Date.now();
      await db.transaction((tx) => emitMany(tx, events));
      // Without a per-endpoint limit the hanging endpoint soon holds all 8 slots, and the rest
      // of the healthy deliveries wait for its attempts to time out (4 s each round).
      await eventually(async () => healthy.requests.length >= EVENTS, TIMEOUT_MS - 1_000);
      expect(Date.now() - started).to.be.below(TIMEOUT_MS - 1_000);

      const timedOut = await eventually(async () => {
        const rows = await db.any(sql.type(
          z.object({ error: z.string().nullable(), duration_ms: z.number() }),
        )`
          select error, duration_ms from webhook_deliveries where endpoint_id = ${stuck.id}`);
        return rows.length > 0 && rows;
      }, TIMEOUT_MS * 3);
      for (const delivery of timedOut) {
        expect(delivery.error).to.match(/^timeout/);
        expect(delivery.duration_ms).to.be.within(TIMEOUT_MS - 100, TIMEOUT_MS + 2_000);
      }
    } finally {
      await hanging.close();
      await healthy.close();
    }
  });
});
