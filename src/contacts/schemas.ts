// Request and response shapes of contacts. The field schemas are shared with event ingestion,
// which finds or creates contacts from the same identifiers.
import { z } from 'zod';
import { emailAddress } from '../http/email.ts';
import { pageQuery, paginated, requireAChange, Timestamp, WorkspaceParams } from '../http/validation.ts';

/** A string of at most `max` characters (NUL characters are refused for every request in http/). */
export function text(max: number) {
  return z.string().max(max, `must be at most ${max} characters`);
}

/** A JSON object (never an array or scalar), as jsonb stores it. */
export const JsonObject = z
  .record(z.string(), z.unknown())
  .openapi({ type: 'object', additionalProperties: true, example: { plan: 'pro' } });

/** Internationalised addresses too; stored trimmed, lowercased and NFC, so uniqueness ignores case. */
export const Email = emailAddress({ message: 'must be an email address', maxLength: 320 });

export const Name = text(200).transform((value) => value.trim());
export const Phone = text(50).transform((value) => value.trim());
export const AnonymousId = text(200)
  .refine((value) => value.trim().length > 0, 'must not be blank')
  .openapi({ description: 'A device or browser id that identifies an anonymous visitor.' });
export const ContactId = text(100)
  .min(1, 'is required')
  .openapi({ example: 'ct_01JD2Z3K4M5N6P7Q8R9S0T1V2W' });

export const ContactSchema = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    phone: z.string().nullable(),
    anonymousId: z.string().nullable(),
    attributes: z.record(z.string(), z.unknown()),
    leadScore: z.number().int(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Contact');

export const ContactSummarySchema = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
  })
  .openapi('ContactSummary');

export const CreateContactBody = z
  .strictObject({
    email: Email.optional(),
    firstName: Name.optional(),
    lastName: Name.optional(),
    phone: Phone.optional(),
    anonymousId: AnonymousId.optional(),
    attributes: JsonObject.optional(),
  })
  .openapi('CreateContactRequest', {
    description:
      'With both `anonymousId` (of an anonymous contact) and `email`, this identifies the visitor: ' +
      'the anonymous contact takes the email, or is merged into the contact that already has it (200).',
  });

export const UpdateContactBody = requireAChange(
  z.strictObject({
    // Email's own `.openapi({type: 'string'})` would hide the null that clears the field.
    email: Email.nullable()
      .optional()
      .openapi({ type: ['string', 'null'] }),
    firstName: Name.nullable().optional(),
    lastName: Name.nullable().optional(),
    phone: Phone.nullable().optional(),
    anonymousId: AnonymousId.nullable().optional(),
    attributes: JsonObject.optional().openapi({
      description: 'Merged into the stored attributes; a key set to null is removed.',
    }),
  }),
).openapi('UpdateContactRequest');

export const MergeContactsBody = z
  .strictObject({ primaryContactId: ContactId, secondaryContactId: ContactId })
  .refine((body) => body.primaryContactId !== body.secondaryContactId, {
    message: 'must differ from primaryContactId',
    path: ['secondaryContactId'],
  })
  .openapi('MergeContactsRequest');

export const ContactParams = WorkspaceParams.extend({ contactId: z.string().min(1) });

export const ListContactsQuery = z.object({
  email: Email.optional().openapi({ description: 'Exact email (case-insensitive).' }),
  q: text(200).optional().openapi({ description: 'Substring of email, first or last name.' }),
  segmentId: text(100).optional().openapi({ description: 'Only members of this segment.' }),
  ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
});

export const ContactPage = paginated(ContactSchema).openapi('ContactPage');
