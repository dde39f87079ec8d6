import { z } from 'zod';
import { actingUserId } from '../http/principal.ts';
import { access, defineRoute } from '../http/route.ts';
import { readIdentitySecret, rotateIdentitySecret } from './identity.ts';
import {
  CreatePublishableKeyBody,
  IdentitySecretSchema,
  PublishableKeyParams,
  PublishableKeySchema,
  UpdatePublishableKeyBody,
  WorkspaceParams,
} from './schemas.ts';
import {
  changePublishableKey,
  createPublishableKey,
  listPublishableKeys,
  revokePublishable,
} from './service.ts';

const tags = ['Publishable keys'];
// Sessions need the ADMIN role. The identity secret is under the write scope: it lets its holder
// act as any contact from a page, so a key that may only look must not read it (and the first
// read makes it).
const readKeys = access.workspace('publishableKeys:read', { admin: true });
const writeKeys = access.workspace('publishableKeys:write', { admin: true });

export const publishableKeyRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/publishable-keys',
    operationId: 'publishableKeys.list',
    summary: "List the workspace's publishable keys (browser-safe, pk_…)",
    tags,
    access: readKeys,
    params: WorkspaceParams,
    responses: { 200: { description: 'Live publishable keys', schema: z.array(PublishableKeySchema) } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await listPublishableKeys(app.db, workspaceId),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/workspaces/{workspaceId}/publishable-keys',
    operationId: 'publishableKeys.create',
    summary: 'Create a publishable key for pages on the given origins',
    tags,
    access: writeKeys,
    params: WorkspaceParams,
    body: CreatePublishableKeyBody,
    responses: { 201: { description: 'The new key', schema: PublishableKeySchema } },
    handler: async ({ app, workspaceId, body, principal }) => ({
      status: 201,
      body: await createPublishableKey(app.db, workspaceId, { ...body, createdBy: actingUserId(principal) }),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/workspaces/{workspaceId}/publishable-keys/{keyId}',
    operationId: 'publishableKeys.update',
    summary: "Change a publishable key's name, origins or event types",
    tags,
    access: writeKeys,
    params: PublishableKeyParams,
    body: UpdatePublishableKeyBody,
    responses: { 200: { description: 'The changed key', schema: PublishableKeySchema } },
    handler: async ({ app, workspaceId, params, body }) => ({
      status: 200,
      body: await changePublishableKey(app.db, workspaceId, params.keyId, body),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/workspaces/{workspaceId}/publishable-keys/{keyId}',
    operationId: 'publishableKeys.revoke',
    summary: 'Revoke a publishable key; pages using it are refused at once',
    tags,
    access: writeKeys,
    params: PublishableKeyParams,
    responses: { 204: { description: 'Revoked' } },
    handler: async ({ app, workspaceId, params }) => {
      await revokePublishable(app.db, workspaceId, params.keyId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/identity-secret',
    operationId: 'identitySecret.read',
    summary: 'Read the identity secret your backend signs identity tokens with (made on first read)',
    tags,
    access: writeKeys,
    params: WorkspaceParams,
    responses: { 200: { description: 'The identity secret', schema: IdentitySecretSchema } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await readIdentitySecret(app.db, workspaceId),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/workspaces/{workspaceId}/identity-secret/rotate',
    operationId: 'identitySecret.rotate',
    summary: 'Replace the identity secret; tokens signed with the old one stop working at once',
    tags,
    access: writeKeys,
    params: WorkspaceParams,
    responses: { 200: { description: 'The new identity secret', schema: IdentitySecretSchema } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await rotateIdentitySecret(app.db, workspaceId),
    }),
  }),
];
