// Campaign definitions: trigger, steps, goal and reentry. Steps are checked here in full (shapes,
// nesting, limits), so the engine can trust what it reads.
import { z } from 'zod';
import { CHANNEL_NAMES, CHANNEL_STEPS, RequiredText } from '../channels/index.ts';
import { text } from '../contacts/index.ts';
import {
  nullableRef,
  pageQuery,
  paginated,
  requireAChange,
  Timestamp,
  WorkspaceParams,
} from '../http/validation.ts';
import { TrackingSwitches } from '../messages/index.ts';
import {
  IsoDuration,
  type MetadataCondition,
  MetadataConditions,
  type Rule,
  SegmentRules,
} from '../segments/index.ts';

const Required = RequiredText;

export const EventTrigger = z.strictObject({
  type: z.literal('event'),
  eventType: Required(200),
  where: MetadataConditions.optional(),
});

export const SegmentEnteredTrigger = z.strictObject({
  type: z.literal('segment_entered'),
  segmentId: Required(100),
});

export const BroadcastTrigger = z.strictObject({
  type: z.literal('broadcast'),
  segmentId: Required(100),
  sendAt: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ description: 'When to enroll the members; activation time if absent.' }),
});

export const CampaignTrigger = z
  .discriminatedUnion('type', [EventTrigger, SegmentEnteredTrigger, BroadcastTrigger], {
    error:
      'must be {type: "event", eventType, where?}, {type: "segment_entered", segmentId} or ' +
      '{type: "broadcast", segmentId, sendAt?}',
  })
  .openapi('CampaignTrigger');
export type CampaignTrigger = z.output<typeof CampaignTrigger>;

// Each registered channel's send step (its fields are the channel's own: channels/<name>/channel.ts).
const SendStep = z.discriminatedUnion('channel', CHANNEL_STEPS, {
  error: `channel must be ${CHANNEL_NAMES.slice(0, -1).join(', ')} or ${CHANNEL_NAMES.at(-1)}`,
});

export const Clock = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day as HH:MM (24-hour)');

/** An IANA time zone name the runtime knows (PostgreSQL knows the same database). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const TimeZone = text(100).refine(isTimeZone, 'must be an IANA time zone such as Europe/Paris');

const WaitStep = z
  .strictObject({
    type: z.literal('wait'),
    duration: IsoDuration.optional(),
    until: z
      .strictObject({ time: Clock, timezone: TimeZone.optional() })
      .optional()
      .openapi({
        description:
          "The next such local time in the contact's `timezone` attribute, else in `timezone`, else in " +
          "the workspace's default time zone (`timezone` of …/campaign-pacing), else UTC.",
      }),
  })
  .refine((step) => (step.duration === undefined) !== (step.until === undefined), {
    message: 'must have either duration or until, not both',
  });

const SegmentRef = z.strictObject({ segment: Required(100) });
const EventSince = z.strictObject({
  event: Required(200),
  since: z.literal('enrollment'),
  where: MetadataConditions.optional(),
});

/** `{segment}` and `{event, since}` are told from a segment rule by their keys. */
export const BranchCondition = z
  .unknown()
  .transform((value, ctx) => {
    const keys = value && typeof value === 'object' ? Object.keys(value) : [];
    const schema = keys.includes('segment') ? SegmentRef : keys.includes('since') ? EventSince : SegmentRules;
    const result = (schema as z.ZodType).safeParse(value);
    if (result.success) return result.data as BranchCondition;
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') ctx.addIssue({ ...issue });
      else ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
    return z.NEVER;
  })
  .openapi('BranchCondition', {
    type: 'object',
    description:
      'A segment rule over the contact (see SegmentRules), `{segment: id}` (a member of that segment ' +
      'now) or `{event: type, since: "enrollment", where?}` (did it since enrolling).',
  }) as unknown as z.ZodType<BranchCondition>;
export type BranchCondition =
  | Rule
  | { segment: string }
  | { event: string; since: 'enrollment'; where?: MetadataCondition[] };

const ExitStep = z.strictObject({ type: z.literal('exit') });

export const MAX_STEPS = 100;

/** Branches and splits nest up to this many levels; the schemas are built level by level. */
export const MAX_NESTING = 3;
const STEP_TYPES_ERROR = 'type must be send, wait, branch, split or exit';

const LEAVES = [SendStep, WaitStep, ExitStep] as const;

/** The steps at the deepest level: no branch or split any more. */
function leafLevel() {
  return z.discriminatedUnion('type', [...LEAVES], {
    error: `type must be send, wait or exit (branches and splits nest ${MAX_NESTING} levels deep at most)`,
  });
}

/**
 * The steps of one level, whose branches and splits hold steps of `inner`. Built level by level
 * (not as a recursive schema) so that nesting has its limit and the steps' type is the schema's
 * own output, every level a subset of the one around it.
 */
function levelAround<Inner extends z.ZodType>(inner: Inner) {
  const list = z.array(inner).max(MAX_STEPS, `must hold at most ${MAX_STEPS} steps`);
  const Branch = z.strictObject({
    type: z.literal('branch'),
    if: BranchCondition,
    // biome-ignore lint/suspicious/noThenProperty: the branch step's arms are named then and else
    then: list.default([]),
    else: list.default([]),
  });
  const Split = z.strictObject({
    type: z.literal('split'),
    paths: z
      .array(z.strictObject({ weight: z.number().int().min(1).max(1000), steps: list }))
      .min(2, 'must hold at least two paths')
      .max(10, 'must hold at most ten paths')
      .openapi({ description: 'Each enrollment draws one path, with probability weight / sum of weights.' }),
  });
  return z.discriminatedUnion('type', [...LEAVES, Branch, Split], { error: STEP_TYPES_ERROR });
}

/** MAX_NESTING levels of branches and splits around the leaves. */
export const CampaignStep = levelAround(levelAround(levelAround(leafLevel()))).openapi('CampaignStep');
/** A step as the engine, the report and the preview read it: the schema's output, at any depth. */
export type CampaignStep = z.output<typeof CampaignStep>;
export type SendStep = Extract<CampaignStep, { type: 'send' }>;

/** Every step of the tree, nested ones included. */
export const MAX_TOTAL_STEPS = 300;

function countSteps(steps: readonly Record<string, unknown>[]): number {
  let total = 0;
  for (const step of steps) {
    total += 1;
    if (Array.isArray(step.then)) total += countSteps(step.then);
    if (Array.isArray(step.else)) total += countSteps(step.else);
    if (Array.isArray(step.paths)) {
      for (const path of step.paths as { steps: Record<string, unknown>[] }[])
        total += countSteps(path.steps);
    }
  }
  return total;
}

const Steps = z
  .array(CampaignStep)
  .min(1, 'must hold at least one step')
  .max(MAX_STEPS, `must hold at most ${MAX_STEPS} steps`)
  .refine((steps) => countSteps(steps as Record<string, unknown>[]) <= MAX_TOTAL_STEPS, {
    message: `must hold at most ${MAX_TOTAL_STEPS} steps in all, nested ones included`,
  });

export const CampaignGoal = z
  .strictObject({ eventType: Required(200), where: MetadataConditions.optional() })
  .openapi('CampaignGoal', {
    description: 'A contact who tracks this event while enrolled exits at once as `converted`.',
  });

export const Reentry = z.enum(['never', 'after_completion', 'always']).openapi({
  description:
    'never: a contact enrolls once ever; after_completion: again once the previous enrollment ' +
    'has ended; always: on every trigger.',
});

const Name = Required(200).transform((value) => value.trim());

export const CreateCampaignBody = z
  .strictObject({
    name: Name,
    trigger: CampaignTrigger,
    steps: Steps,
    reentry: Reentry.default('never'),
    goal: CampaignGoal.optional(),
    tracking: TrackingSwitches.optional().openapi({
      description:
        "Open and click tracking of this campaign's email (default: both on, where the workspace allows).",
    }),
  })
  .openapi('CreateCampaignRequest');

export const UpdateCampaignBody = requireAChange(
  z.strictObject({
    name: Name.optional(),
    trigger: CampaignTrigger.optional(),
    steps: Steps.optional(),
    reentry: Reentry.optional(),
    goal: nullableRef(CampaignGoal).optional(),
    tracking: TrackingSwitches.optional(),
  }),
).openapi('UpdateCampaignRequest', {
  description:
    'Drafts take any field; active and paused campaigns only a new name and tracking (which applies to mail sent from then on).',
});

export const CampaignStatus = z.enum(['draft', 'active', 'paused', 'archived']);

export const CampaignSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    trigger: CampaignTrigger,
    steps: z.array(CampaignStep),
    reentry: Reentry,
    goal: nullableRef(CampaignGoal),
    tracking: TrackingSwitches,
    status: CampaignStatus,
    activatedAt: Timestamp.nullable(),
    broadcast: z
      .object({
        startedAt: Timestamp.nullable().openapi({ description: 'When its first members were enrolled.' }),
        enrolledAt: Timestamp.nullable().openapi({
          description: 'When its last member was enrolled (their first messages queued).',
        }),
        finishedAt: Timestamp.nullable().openapi({
          description:
            'When its last message left the queue (sent, failed, suppressed…): every member enrolled and none queued or sending.',
        }),
      })
      .nullable()
      .openapi({
        description: "A broadcast's sending times (null until they happen); null for other triggers.",
      }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Campaign');

export const EnrollmentStatus = z.enum(['active', 'completed', 'converted', 'exited']);

export const EnrollmentSchema = z
  .object({
    id: z.string(),
    campaignId: z.string(),
    contactId: z.string(),
    status: EnrollmentStatus,
    exitReason: z.enum(['goal', 'archived', 'unsubscribed', 'manual', 'merged']).nullable(),
    currentStep: z.number().int(),
    stepKey: z.string().nullable().openapi({
      description: 'The step it is at ("2", "3.then.0", "4.paths.1.0"); null once it has ended.',
    }),
    nextStepAt: Timestamp.nullable().openapi({ description: 'When a wait ends.' }),
    held: z.boolean().openapi({ description: 'Held at stepKey by a paused campaign.' }),
    cohorts: z.record(z.string(), z.number().int()).openapi({ description: 'Split step key → path drawn.' }),
    triggerEventId: z.string().nullable(),
    enrolledAt: Timestamp,
    completedAt: Timestamp.nullable(),
  })
  .openapi('Enrollment');

export const CampaignParams = WorkspaceParams.extend({ campaignId: z.string().min(1) });
export const EnrollmentParams = CampaignParams.extend({ enrollmentId: z.string().min(1) });

export const ListCampaignsQuery = z.object({
  status: CampaignStatus.optional(),
  ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
});

export const ListEnrollmentsQuery = z.object({
  status: EnrollmentStatus.optional(),
  contactId: text(100).optional(),
  ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
});

export const CampaignPage = paginated(CampaignSchema).openapi('CampaignPage');
export const EnrollmentPage = paginated(EnrollmentSchema).openapi('EnrollmentPage');

export { WorkspaceParams };
export type CampaignGoal = z.output<typeof CampaignGoal>;
