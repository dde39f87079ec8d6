// Campaign definitions: trigger, steps and reentry. Steps are checked here in full, so the later
// execution issue can trust what it reads.
import { z } from 'zod';
import { text } from '../contacts/index.ts';
import { pageQuery, paginated, requireAChange, Timestamp, WorkspaceParams } from '../http/validation.ts';
import { IsoDuration, MetadataConditions } from '../segments/index.ts';

const Required = (max: number) => text(max).refine((value) => value.trim().length > 0, 'must not be blank');

const HttpUrl = text(2048).refine((value) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

export const EventTrigger = z.strictObject({
  type: z.literal('event'),
  eventType: Required(200),
  where: MetadataConditions.optional(),
});

export const SegmentEnteredTrigger = z.strictObject({
  type: z.literal('segment_entered'),
  segmentId: Required(100),
});

export const CampaignTrigger = z
  .discriminatedUnion('type', [EventTrigger, SegmentEnteredTrigger], {
    error: 'must be {type: "event", eventType, where?} or {type: "segment_entered", segmentId}',
  })
  .openapi('CampaignTrigger');
export type CampaignTrigger = z.output<typeof CampaignTrigger>;

const EmailStep = z.strictObject({
  type: z.literal('send'),
  channel: z.literal('email'),
  subject: Required(998),
  body: Required(100_000).openapi({ description: 'HTML or text; Liquid templates come with sending.' }),
  preheader: text(200).optional(),
});

const PushStep = z.strictObject({
  type: z.literal('send'),
  channel: z.literal('push'),
  title: Required(100),
  body: Required(500),
  url: HttpUrl.optional().openapi({ description: 'Opened when the notification is clicked.' }),
  icon: HttpUrl.optional(),
});

const TelegramStep = z.strictObject({
  type: z.literal('send'),
  channel: z.literal('telegram'),
  text: Required(4096),
  parseMode: z.enum(['HTML', 'MarkdownV2']).optional(),
});

const SendStep = z.discriminatedUnion('channel', [EmailStep, PushStep, TelegramStep], {
  error: 'channel must be email, push or telegram',
});

const WaitStep = z.strictObject({ type: z.literal('wait'), duration: IsoDuration });

export const CampaignStep = z
  .discriminatedUnion('type', [SendStep, WaitStep], { error: 'type must be send or wait' })
  .openapi('CampaignStep');

export const MAX_STEPS = 100;

const Steps = z
  .array(CampaignStep)
  .min(1, 'must hold at least one step')
  .max(MAX_STEPS, `must hold at most ${MAX_STEPS} steps`);

export const Reentry = z.enum(['never', 'after_completion', 'always']).openapi({
  description:
    'never: a contact enrolls once ever; after_completion: again once the previous enrollment ' +
    'has ended; always: on every trigger.',
});

const Name = Required(200).transform((value) => value.trim());

export const CreateCampaignBody = z
  .strictObject({ name: Name, trigger: CampaignTrigger, steps: Steps, reentry: Reentry.default('never') })
  .openapi('CreateCampaignRequest');

export const UpdateCampaignBody = requireAChange(
  z.strictObject({
    name: Name.optional(),
    trigger: CampaignTrigger.optional(),
    steps: Steps.optional(),
    reentry: Reentry.optional(),
  }),
).openapi('UpdateCampaignRequest', {
  description: 'Drafts take any field; active and paused campaigns only a new name.',
});

export const CampaignStatus = z.enum(['draft', 'active', 'paused', 'archived']);

export const CampaignSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    trigger: CampaignTrigger,
    steps: z.array(CampaignStep),
    reentry: Reentry,
    status: CampaignStatus,
    activatedAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Campaign');

export const EnrollmentSchema = z
  .object({
    id: z.string(),
    campaignId: z.string(),
    contactId: z.string(),
    status: z.enum(['active', 'completed', 'exited']),
    currentStep: z.number().int(),
    triggerEventId: z.string().nullable(),
    enrolledAt: Timestamp,
    completedAt: Timestamp.nullable(),
  })
  .openapi('Enrollment');

export const CampaignParams = WorkspaceParams.extend({ campaignId: z.string().min(1) });

export const ListCampaignsQuery = z.object({
  status: CampaignStatus.optional(),
  ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
});

export const ListEnrollmentsQuery = z.object({
  status: z.enum(['active', 'completed', 'exited']).optional(),
  contactId: text(100).optional(),
  ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
});

export const CampaignPage = paginated(CampaignSchema).openapi('CampaignPage');
export const EnrollmentPage = paginated(EnrollmentSchema).openapi('EnrollmentPage');

export { WorkspaceParams };
