import { z } from 'zod';
import { SCOPES } from '../http/scopes.ts';
import { Timestamp, WorkspaceParams } from '../http/validation.ts';

export const ScopeSchema = z.enum(SCOPES).openapi('Scope', {
  description:
    'contacts:read/write — contacts; events:read/write — events; segments:read/write — segments and ' +
    'scoring rules; campaigns:read/write — campaigns; webhooks:read/write — webhook endpoints and ' +
    'deliveries; channels:read/write — channel configuration and provider feedback; messages:read/write — ' +
    'messages (list, get, send) and tracking settings; forms:read/write — forms; publishableKeys:read — list publishable ' +
    'keys; publishableKeys:write — create, change and revoke them, and read or rotate the identity secret.',
});

export const CreateApiKeyBody = z
  .strictObject({
    name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
    scopes: z
      .array(ScopeSchema)
      .min(1, 'must list at least one scope')
      .transform((scopes) => [...new Set(scopes)]),
    expiresAt: z.iso
      .datetime({ offset: true, message: 'must be an ISO 8601 timestamp' })
      .refine((value) => Date.parse(value) > Date.now(), 'must be in the future')
      .optional()
      .openapi({
        description: 'When the key stops working; absent: never.',
        example: '2099-12-31T23:59:59Z',
      }),
  })
  // The example leaves expiresAt out: /docs would otherwise fill in the current time, which is
  // already past when "Execute" sends it.
  .openapi('CreateApiKeyRequest', {
    example: { name: 'CRM sync', scopes: ['contacts:read', 'events:write'] },
  });

export const CreatedApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    key: z.string().openapi({ description: 'The full key. Shown only in this response; store it now.' }),
    scopes: z.array(ScopeSchema),
    expiresAt: Timestamp.optional().openapi({ description: 'Absent when the key does not expire.' }),
    createdAt: Timestamp,
  })
  .openapi('CreatedApiKey');

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    key: z
      .string()
      .openapi({ description: 'Masked: prefix, …, last 4 characters.', example: 'sb_Ab3x…9fQz' }),
    scopes: z.array(ScopeSchema),
    expiresAt: Timestamp.optional().openapi({ description: 'Absent when the key does not expire.' }),
    lastUsedAt: Timestamp.nullable().openapi({
      description: 'Null until the key is first used; updated at most once a minute.',
    }),
    createdAt: Timestamp,
  })
  .openapi('ApiKey');

export const RevokeApiKeyBody = z.strictObject({ keyId: z.string().min(1) }).openapi('RevokeApiKeyRequest');

export { WorkspaceParams };
