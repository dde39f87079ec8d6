import { z } from 'zod';
import { actingUserId } from '../http/principal.ts';
import { access, defineRoute } from '../http/route.ts';
import {
  ApiKeySchema,
  CreateApiKeyBody,
  CreatedApiKeySchema,
  RevokeApiKeyBody,
  WorkspaceParams,
} from './schemas.ts';
import { createApiKey, listApiKeys, revokeKey } from './service.ts';

const tags = ['API keys'];
const adminSessionOnly = access.workspace(null, { admin: true });

export const apiKeyRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/keys',
    operationId: 'keys.list',
    summary: "List the workspace's API keys (masked)",
    tags,
    access: adminSessionOnly,
    params: WorkspaceParams,
    responses: { 200: { description: 'Keys that can still authenticate', schema: z.array(ApiKeySchema) } },
    handler: async ({ app, workspaceId }) => ({ status: 200, body: await listApiKeys(app.db, workspaceId) }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/workspaces/{workspaceId}/keys',
    operationId: 'keys.create',
    summary: 'Create an API key; the full key is returned only here',
    tags,
    access: adminSessionOnly,
    params: WorkspaceParams,
    body: CreateApiKeyBody,
    responses: { 201: { description: 'The new key, in full', schema: CreatedApiKeySchema } },
    handler: async ({ app, workspaceId, body, principal }) => ({
      status: 201,
      body: await createApiKey(app.db, workspaceId, { ...body, createdBy: actingUserId(principal) }),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/workspaces/{workspaceId}/keys',
    operationId: 'keys.revoke',
    summary: 'Revoke an API key; it can no longer authenticate',
    tags,
    access: adminSessionOnly,
    params: WorkspaceParams,
    body: RevokeApiKeyBody,
    responses: { 204: { description: 'Revoked' } },
    handler: async ({ app, workspaceId, body }) => {
      await revokeKey(app.db, workspaceId, body.keyId);
      return { status: 204 };
    },
  }),
];
