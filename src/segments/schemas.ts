import { z } from 'zod';
import { pageQuery, paginated, requireAChange, Timestamp, WorkspaceParams } from '../http/validation.ts';
import { SegmentRules, safeText } from './ruleSchemas.ts';

const Name = safeText(200)
  .transform((value) => value.trim())
  .pipe(z.string().min(1, 'must not be blank'));
const Description = safeText(2000).nullable();

export const SegmentSchema = z
  .object({
    id: z.string().openapi({ example: 'seg_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
    name: z.string(),
    description: z.string().nullable(),
    rules: SegmentRules,
    status: z.enum(['computing', 'ready']).openapi({
      description:
        '`computing` from creation or a change of rules until the background job has evaluated every ' +
        'contact, page by page (memberships, `count` and segment.entered / segment.exited events fill ' +
        'in as pages finish); then `ready`.',
    }),
    count: z.number().int().openapi({ description: 'Contacts in the segment now.' }),
    computedAt: Timestamp.nullable().openapi({
      description: 'When membership was last computed for everyone.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Segment');

export const CreateSegmentBody = z
  .strictObject({ name: Name, description: Description.optional(), rules: SegmentRules })
  .openapi('CreateSegmentRequest');

export const UpdateSegmentBody = requireAChange(
  z.strictObject({
    name: Name.optional(),
    description: Description.optional(),
    rules: SegmentRules.optional(),
  }),
).openapi('UpdateSegmentRequest');

export const SegmentParams = WorkspaceParams.extend({ segmentId: z.string().min(1) });

export const ListSegmentsQuery = z.object(pageQuery({ defaultLimit: 50, maxLimit: 200 }));
export const SegmentContactsQuery = ListSegmentsQuery;

export const SegmentPage = paginated(SegmentSchema).openapi('SegmentPage');

export const SegmentCountSchema = z
  .object({ segmentId: z.string(), count: z.number().int(), status: z.enum(['computing', 'ready']) })
  .openapi('SegmentCount');
