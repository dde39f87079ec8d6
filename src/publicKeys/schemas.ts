import { z } from 'zod';
import { Timestamp, WorkspaceParams } from '../http/validation.ts';

/** An origin as browsers send it: scheme, host and port only, no path or trailing slash. */
const OriginSchema = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
    } catch {
      return false;
    }
  }, 'must be an origin such as https://www.example.com (scheme, host and port; no path or trailing slash)')
  .openapi({ example: 'https://www.example.com' });

const EventTypeSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9_.:-]+$/, 'may hold letters, digits and _ . : - only');

const name = z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters');
const allowedOrigins = z
  .array(OriginSchema)
  .min(1, 'must list at least one origin')
  .max(100, 'must list at most 100 origins')
  .transform((origins) => [...new Set(origins)])
  .openapi({ description: 'The pages that may use the key; CORS answers only these origins.' });
const allowedEventTypes = z
  .array(EventTypeSchema)
  .max(100, 'must list at most 100 event types')
  .transform((types) => [...new Set(types)])
  .openapi({ description: 'Event types the key may send to POST /api/public/events (e.g. page_view).' });

export const CreatePublishableKeyBody = z
  .strictObject({ name, allowedOrigins, allowedEventTypes: allowedEventTypes.default([]) })
  .openapi('CreatePublishableKeyRequest', {
    example: {
      name: 'Website',
      allowedOrigins: ['https://www.example.com'],
      allowedEventTypes: ['page_view'],
    },
  });

export const UpdatePublishableKeyBody = z
  .strictObject({
    name: name.optional(),
    allowedOrigins: allowedOrigins.optional(),
    allowedEventTypes: allowedEventTypes.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'must change name, allowedOrigins or allowedEventTypes')
  .openapi('UpdatePublishableKeyRequest');

export const PublishableKeySchema = z
  .object({
    id: z.string().openapi({ example: 'pkey_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
    name: z.string(),
    key: z.string().openapi({
      description: 'The publishable key, safe to put in page source; shown in full, always.',
      example: 'pk_4QHn0lJx2m2s1sFZ1cWb3x9y8z7A6B5C',
    }),
    allowedOrigins: z.array(z.string()),
    allowedEventTypes: z.array(z.string()),
    lastUsedAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .openapi('PublishableKey');

export const PublishableKeyParams = WorkspaceParams.extend({ keyId: z.string() });

export const IdentitySecretSchema = z
  .object({
    secret: z.string().openapi({
      description: 'Keep it on your backend. Identity token = hex(HMAC-SHA256(secret, email or contact id)).',
      example: 'sbid_x2Vq…',
    }),
    rotatedAt: Timestamp,
  })
  .openapi('IdentitySecret');

export { WorkspaceParams };
