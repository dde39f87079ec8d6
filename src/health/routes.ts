import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import { sql } from '../db/pool.ts';
import { openApiDocument } from '../http/openapi.ts';
import { access, defineRoute } from '../http/route.ts';
import { Timestamp } from '../http/validation.ts';

// A load balancer needs an answer, not a hung request: a database that does not answer within this
// time (a dead host, a full pool) counts as down.
const DATABASE_TIMEOUT_MS = 2_000;

async function databaseAnswers(app: AppContext): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), DATABASE_TIMEOUT_MS);
  });
  const query = app.db.oneFirst(sql.type(z.object({ ok: z.number() }))`select 1 as ok`).then(
    () => true,
    (error: unknown) => {
      app.log.warn({ err: error }, 'health check: database did not answer');
      return false;
    },
  );
  try {
    return await Promise.race([query, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

const Health = z
  .object({
    status: z.enum(['ok', 'error']),
    timestamp: Timestamp,
    version: z.string(),
  })
  .openapi('Health');

// A cached health answer would hide an outage from whoever polls it.
const NoStore = z.object({ 'Cache-Control': z.literal('no-store') });

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/health',
    operationId: 'health.get',
    summary: 'Service health: answers 503 when the database does not',
    tags: ['Meta'],
    access: access.public,
    responses: {
      200: { description: 'The service and its database answer', schema: Health, headers: NoStore },
      503: { description: 'The database does not answer', schema: Health, headers: NoStore },
    },
    handler: async ({ app }) => {
      const ok = await databaseAnswers(app);
      return {
        status: ok ? 200 : 503,
        body: { status: ok ? 'ok' : 'error', timestamp: new Date().toISOString(), version: app.version },
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/openapi',
    operationId: 'openapi.get',
    summary: 'This OpenAPI 3.1.0 document',
    tags: ['Meta'],
    access: access.public,
    responses: { 200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
    handler: async ({ app }) => ({
      status: 200,
      body: openApiDocument({ version: app.version, serverUrl: app.config.PUBLIC_URL }),
    }),
  }),
];
