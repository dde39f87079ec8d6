// Shapes of forms: how an ADMIN or API key describes one (fields, where each lands on the contact,
// what follows a submission), and what the API returns.
import { z } from 'zod';
import { pageQuery, paginated, requireAChange, Timestamp, WorkspaceParams } from '../http/validation.ts';
import { parsesAsTemplate } from '../templates/index.ts';

export const FIELD_TYPES = ['email', 'text', 'tel', 'checkbox', 'hidden'] as const;
export const CONTACT_FIELDS = ['email', 'firstName', 'lastName', 'phone'] as const;
/** The honeypot's name: no field may take it. */
export const HONEYPOT = 'hp_website';

const MapTo = z
  .union([
    z.strictObject({ contactField: z.enum(CONTACT_FIELDS) }),
    z.strictObject({
      attribute: z
        .string()
        .regex(
          /^[A-Za-z][A-Za-z0-9_]{0,63}$/,
          'must be 1 to 64 letters, digits or _, starting with a letter',
        ),
    }),
  ])
  .openapi('FormFieldMapping', {
    description: 'Where the value lands: a contact field, or a key of the contact’s attributes.',
    example: { contactField: 'firstName' },
  });

export const FormField = z
  .strictObject({
    key: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be 1 to 64 letters, digits or _, starting with a letter')
      .refine((key) => key !== HONEYPOT && key !== 'key', `must not be "${HONEYPOT}" or "key" (reserved)`),
    label: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'),
    type: z.enum(FIELD_TYPES),
    required: z.boolean().default(false),
    mapTo: MapTo.optional(),
    value: z
      .string()
      .max(1000, 'must be at most 1000 characters')
      .optional()
      .openapi({ description: 'For hidden fields: the value sent when the page sends none.' }),
  })
  .openapi('FormField');
export type FormField = z.output<typeof FormField>;

const fields = z
  .array(FormField)
  .min(1, 'must hold at least one field')
  .max(50, 'must hold at most 50 fields')
  .superRefine((list, context) => {
    const seen = new Set<string>();
    for (const [index, field] of list.entries()) {
      if (seen.has(field.key))
        context.addIssue({ code: 'custom', path: [index, 'key'], message: 'is used twice' });
      seen.add(field.key);
    }
    const email = list.filter(
      (field) => field.mapTo && 'contactField' in field.mapTo && field.mapTo.contactField === 'email',
    );
    if (email.length !== 1 || email[0].type !== 'email' || !email[0].required) {
      context.addIssue({
        code: 'custom',
        message:
          'must hold exactly one required field of type email mapped to {"contactField": "email"}: submissions are kept by email',
      });
    }
  });

const successMessage = z
  .string()
  .trim()
  .min(1)
  .max(1000, 'must be at most 1000 characters')
  .superRefine(parsesAsTemplate('text'))
  .openapi({
    description:
      'Shown after a submission (the thank-you page, and `message` in the JSON answer). A Liquid template ' +
      'that sees only what was submitted: each field by its key (`{{ firstName }}`, or `fields.firstName`), ' +
      '`contact` as the submission gives it (`{{ contact.firstName | default: "there" }}`) and `form.name`; ' +
      'never what the contact record already holds. One that does not parse is refused (400).',
    example: 'Thanks, {{ firstName | default: "friend" }}! You are on the list.',
  });
const redirectUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .max(2048, 'must be at most 2048 characters');
const name = z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters');

export const CreateFormBody = z
  .strictObject({
    name,
    fields,
    successMessage: successMessage.optional(),
    redirectUrl: redirectUrl
      .optional()
      .openapi({ description: 'Where the hosted page sends the visitor after a submission.' }),
    doubleOptIn: z.boolean().default(false).openapi({
      description: 'Email-subscribe the contact only once they follow the confirmation link we email them.',
    }),
  })
  .openapi('CreateFormRequest', {
    example: {
      name: 'Newsletter',
      fields: [
        { key: 'email', label: 'Email', type: 'email', required: true, mapTo: { contactField: 'email' } },
        { key: 'firstName', label: 'First name', type: 'text', mapTo: { contactField: 'firstName' } },
        { key: 'company', label: 'Company', type: 'text', mapTo: { attribute: 'company' } },
      ],
      successMessage: 'Thanks! You are on the list.',
      doubleOptIn: true,
    },
  });
export type CreateFormBody = z.output<typeof CreateFormBody>;

export const UpdateFormBody = requireAChange(
  z.strictObject({
    name: name.optional(),
    fields: fields.optional(),
    successMessage: successMessage.nullable().optional(),
    redirectUrl: redirectUrl.nullable().optional(),
    doubleOptIn: z.boolean().optional(),
  }),
).openapi('UpdateFormRequest');
export type UpdateFormBody = z.output<typeof UpdateFormBody>;

export const FormSchema = z
  .object({
    id: z.string().openapi({ example: 'frm_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
    name: z.string(),
    fields: z.array(FormField),
    successMessage: z.string().nullable(),
    redirectUrl: z.string().nullable(),
    doubleOptIn: z.boolean(),
    hostedUrl: z.string().openapi({ description: 'The hosted page: link to it, or embed it in an iframe.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Form');

export const SubmissionSchema = z
  .object({
    id: z.string(),
    formId: z.string(),
    contactId: z.string().nullable(),
    fields: z.record(z.string(), z.union([z.string(), z.boolean()])),
    confirmation: z.enum(['none', 'pending', 'confirmed']).openapi({
      description: 'none: the form has no double opt-in; pending until the link in the email is followed.',
    }),
    confirmedAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .openapi('FormSubmission');

export const SubmissionPage = paginated(SubmissionSchema).openapi('FormSubmissionPage');
export const SubmissionsQuery = z.object(pageQuery({ defaultLimit: 50, maxLimit: 100 }));

export const FormParams = WorkspaceParams.extend({ formId: z.string().min(1) });

export const SubmittedSchema = z
  .object({
    submissionId: z.string(),
    confirmation: z.enum(['none', 'pending', 'confirmed']),
    message: z.string(),
    redirectUrl: z.string().nullable(),
  })
  .openapi('FormSubmitted');

export { WorkspaceParams };
