import { z } from 'zod';
import { access, defineRoute } from '../http/route.ts';
import { AuditEntrySchema, ListAuditQuery, WorkspaceParams } from './schemas.ts';
import { listAudit } from './service.ts';

export const auditRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/audit',
    operationId: 'audit.list',
    summary: "List the workspace's audit log, newest first",
    description:
      'Every change to the configuration: keys, members, channels, webhooks, segments, scoring, ' +
      'campaigns and forms, with who made it, from where, and settings before and after (secrets ' +
      "left out). Page with `beforeId`: the last entry's id. ADMINs only: the log names members' " +
      'addresses and keys that MEMBERs may not list.',
    tags: ['Audit log'],
    access: access.workspace(null, { admin: true }),
    params: WorkspaceParams,
    query: ListAuditQuery,
    responses: { 200: { description: 'Entries, newest first', schema: z.array(AuditEntrySchema) } },
    handler: async ({ app, workspaceId, query }) => ({
      status: 200,
      body: await listAudit(app.db, workspaceId, query),
    }),
  }),
];
