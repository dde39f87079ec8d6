import { z } from 'zod';
import { storableInstant, Timestamp, WorkspaceParams } from '../http/validation.ts';
import { AUDIT_ACTION_NAMES, AUDIT_ACTIONS } from './actions.ts';

const text = (max: number) => z.string().trim().min(1).max(max);

const instant = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 timestamp' })
  .refine(...storableInstant)
  .transform((value) => new Date(value).toISOString());

const actionFilter = z
  .string()
  .trim()
  .regex(
    /^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)?\.?$/,
    'must be an action (apiKey.created) or its first part (apiKey)',
  )
  .refine((value) => {
    const [type, verb] = value.split('.');
    return type in AUDIT_ACTIONS && (!verb || AUDIT_ACTION_NAMES.includes(value as never));
  }, 'names no action the audit log records (see the description for the list)');

/** The filters one by one (the console's page takes each that parses); ListAuditQuery checks them together. */
export const AuditFilterFields = z.object({
  action: actionFilter.optional().openapi({
    description: `Only this action, or every action of a kind when only its first part is given (\`apiKey\`). The actions: ${AUDIT_ACTION_NAMES.map((name) => `\`${name}\``).join(', ')}.`,
    example: 'apiKey',
  }),
  actorType: z
    .enum(['user', 'apiKey', 'cli', 'system'])
    .optional()
    .openapi({ description: 'Only changes made by this kind of actor.' }),
  actorId: text(100).optional().openapi({ description: "Only this user's or API key's changes." }),
  targetType: z
    .enum(Object.keys(AUDIT_ACTIONS) as [string, ...string[]])
    .optional()
    .openapi({ description: 'Only changes to this kind of thing.' }),
  targetId: text(100).optional().openapi({ description: 'Only changes to this one (an id).' }),
  since: instant.optional().openapi({ description: 'Only changes at or after this time.' }),
  until: instant.optional().openapi({ description: 'Only changes before this time.' }),
  beforeId: z
    .string()
    .regex(/^aud_[0-9A-Z]{26}$/, 'must be an audit entry id (aud_…)')
    .optional()
    .openapi({
      description: "Only entries older than this one: pass the last entry's id for the next page.",
    }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .openapi({ description: 'How many (default 50, maximum 200).' }),
});

export const ListAuditQuery = AuditFilterFields.refine(
  (query) => !query.since || !query.until || query.since < query.until,
  {
    path: ['until'],
    message: 'must be after since',
  },
);

export const AuditEntrySchema = z
  .object({
    id: z.string().openapi({ example: 'aud_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
    action: z.string().openapi({ example: 'apiKey.created' }),
    target: z.object({
      type: z.string().openapi({ example: 'apiKey' }),
      id: z.string().openapi({ example: 'key_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
    }),
    actor: z
      .object({
        type: z.enum(['user', 'apiKey', 'cli', 'system']),
        id: z
          .string()
          .nullable()
          .openapi({ description: 'The user or API key id; null for the CLI and the system.' }),
        name: z.string().nullable().openapi({
          description:
            "The user's email or the key's name as they were at the time; the operating-system user for the CLI.",
        }),
      })
      .openapi({ description: 'Who made the change.' }),
    origin: z
      .object({
        ip: z.string().nullable(),
        userAgent: z.string().nullable(),
      })
      .openapi({ description: 'Where an HTTP request came from; both null for the CLI and the system.' }),
    before: z.unknown().openapi({
      description:
        'The setting before the change (null when it was made or is not a setting); secrets are `[redacted]`.',
    }),
    after: z.unknown().openapi({
      description: 'The setting after the change (null when it was removed); secrets are `[redacted]`.',
    }),
    createdAt: Timestamp,
  })
  .openapi('AuditEntry');

export { WorkspaceParams };
