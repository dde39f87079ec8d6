import { z } from 'zod';
import { ContactSummarySchema } from '../contacts/index.ts';
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

export const ContactSegmentParams = SegmentParams.extend({ contactId: z.string().min(1) });

type ExplainedNodeShape = {
  kind: 'all' | 'any' | 'not' | 'condition';
  passed: boolean;
  children?: ExplainedNodeShape[];
  condition?: unknown;
  description?: string;
  seen?: unknown;
  seenCapped?: boolean;
};

export const ExplainedNodeSchema: z.ZodType<ExplainedNodeShape> = z
  .object({
    kind: z.enum(['all', 'any', 'not', 'condition']).openapi({
      description: 'A group of the rule (`all`, `any`, `not`, with `children`) or one `condition`.',
    }),
    passed: z.boolean().openapi({ description: 'Whether this group or condition holds for the contact.' }),
    get children() {
      return z
        .array(ExplainedNodeSchema)
        .optional()
        .openapi({ description: 'Groups: their rules, in the order written (`not`: its one rule).' });
    },
    condition: z.record(z.string(), z.unknown()).optional().openapi({
      description: 'Conditions: the condition as written in the rule.',
    }),
    description: z.string().optional().openapi({ description: 'Conditions: the condition in words.' }),
    seen: z
      .unknown()
      .optional()
      .openapi({
        description:
          'Conditions: what it read for this contact. The field or attribute value (null when absent), ' +
          'the number of matching events in the window, or the lead score.',
      }),
    seenCapped: z.boolean().optional().openapi({
      description: 'Event conditions: counting stopped at 10,000 events; `seen` is a lower bound.',
    }),
  })
  .openapi('SegmentExplanationNode');

export const SegmentExplanationSchema = z
  .object({
    segmentId: z.string(),
    contactId: z.string().openapi({ description: 'The contact (a merged id answers for its primary).' }),
    matches: z.boolean().openapi({ description: 'Whether the rule holds for the contact now.' }),
    member: z.boolean().openapi({ description: 'Whether the contact is in the segment as stored.' }),
    enteredAt: Timestamp.nullable().openapi({ description: 'When the stored membership began.' }),
    agrees: z.boolean().openapi({ description: '`matches` equals `member`.' }),
    refreshPending: z.boolean().openapi({
      description:
        'The stored membership is about to change: it disagrees with the rule (a change being applied, or ' +
        'an event that left a time window before the next scheduled refresh), or the segment is computing.',
    }),
    note: z.string().nullable().openapi({ description: 'Why a refresh is pending, in words.' }),
    status: z.enum(['computing', 'ready']),
    rule: z.string().openapi({ description: 'The whole rule in words.' }),
    explanation: ExplainedNodeSchema,
    evaluatedAt: Timestamp.openapi({ description: 'The moment the rule was evaluated at.' }),
  })
  .openapi('SegmentExplanation');

export const PreviewSegmentBody = z.strictObject({ rules: SegmentRules }).openapi('SegmentPreviewRequest');

export const SegmentPreviewSchema = z
  .object({
    count: z.number().int().openapi({
      description: 'Contacts the rule matches now; when `exact` is false, more than this many.',
    }),
    exact: z.boolean().openapi({
      description: 'False when more than 10,000 contacts match: the count stops there ("more than 10,000").',
    }),
    sample: z
      .array(ContactSummarySchema)
      .openapi({ description: 'Up to 10 matching contacts, newest first.' }),
  })
  .openapi('SegmentPreview');

const DayActivitySchema = z.object({
  date: z.string().openapi({ example: '2026-11-27', description: 'A UTC day.' }),
  entered: z.number().int(),
  exited: z.number().int(),
});

export const SegmentStatisticsSchema = z
  .object({
    segmentId: z.string(),
    count: z.number().int().openapi({ description: 'Contacts in the segment now.' }),
    rule: z.string().openapi({
      description:
        'The rule in words, e.g. `email ends with @acme.com and at least 3 "purchase" events in the last 30 days`.',
    }),
    entered: z.number().int().openapi({ description: 'Entries over the 30 days.' }),
    exited: z.number().int().openapi({ description: 'Exits over the 30 days.' }),
    days: z.array(DayActivitySchema).openapi({
      description: 'The last 30 UTC days, oldest first, today last, each with its entries and exits.',
    }),
    refresh: z.object({
      status: z.enum(['computing', 'ready']),
      computedAt: Timestamp.nullable(),
      timeWindow: z.boolean().openapi({
        description: 'The rule reads the clock (`within`): a scheduled refresh keeps it current.',
      }),
      passInProgress: z
        .boolean()
        .openapi({ description: 'A whole refresh pass over the contacts is under way.' }),
      refreshedThrough: Timestamp.nullable().openapi({
        description: 'Time-window segments: every window edge crossed before this has been applied.',
      }),
    }),
  })
  .openapi('SegmentStatistics');
