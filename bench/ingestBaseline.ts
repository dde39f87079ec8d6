// The baseline for bench/ingest.ts: a bare Express route that does one INSERT per request through
// a plain pg pool of the same size as the service's, on the same database and table.
import { randomUUID } from 'node:crypto';
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
const app = express();
app.use(express.json({ limit: '1mb' }));
app.post('/api/workspaces/:workspaceId/events', async (req, res) => {
  const { rows } = await pool.query(
    'insert into events (workspace_id, id, type, metadata) values ($1, $2, $3, $4) returning id, occurred_at',
    [req.params.workspaceId, `evt_${randomUUID()}`, req.body.type, req.body.metadata ?? {}],
  );
  res.status(201).json({
    id: rows[0].id,
    type: req.body.type,
    metadata: req.body.metadata ?? {},
    timestamp: rows[0].occurred_at,
  });
});
const server = app.listen(0, () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('SIGTERM', () => process.exit(0));
