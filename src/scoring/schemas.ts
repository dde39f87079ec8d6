import { z } from 'zod';
import { ContactParams } from '../contacts/index.ts';
import {
  nullableRef,
  pageQuery,
  paginated,
  requireAChange,
  Timestamp,
  WorkspaceParams,
} from '../http/validation.ts';
import { durationSeconds, IsoDuration, MetadataConditions, safeText } from '../segments/index.ts';

const Name = safeText(200)
  .transform((value) => value.trim())
  .pipe(z.string().min(1, 'must not be blank'));
const EventType = safeText(200).min(1, 'must not be empty').openapi({ example: 'purchase' });
const Points = z
  .number()
  .int('must be a whole number')
  .min(-1000, 'must be at least -1000')
  .max(1000, 'must be at most 1000')
  .refine((points) => points !== 0, 'must not be 0')
  .openapi({ example: 10, description: 'Added to the lead score per matching event; negative subtracts.' });

export const ScoringRuleSchema = z
  .object({
    id: z.string().openapi({ example: 'scr_01JD2Z3K4M5N6P7Q8R9S0T1V2W' }),
    name: z.string(),
    eventType: z.string(),
    points: z.number().int(),
    where: nullableRef(MetadataConditions),
    repeatable: z.boolean(),
    cooldown: z.string().nullable(),
    active: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('ScoringRule');

export const CreateScoringRuleBody = z
  .strictObject({
    name: Name,
    eventType: EventType,
    points: Points,
    where: MetadataConditions.optional(),
    repeatable: z.boolean().default(true).openapi({ description: 'false: at most once per contact, ever.' }),
    cooldown: IsoDuration.optional().openapi({
      description:
        'After scoring a contact, the rule ignores their matching events for this long (event time).',
    }),
    active: z.boolean().default(true),
  })
  .openapi('CreateScoringRuleRequest');

export const UpdateScoringRuleBody = requireAChange(
  z.strictObject({
    name: Name.optional(),
    eventType: EventType.optional(),
    points: Points.optional(),
    where: nullableRef(MetadataConditions).optional(),
    repeatable: z.boolean().optional(),
    cooldown: IsoDuration.nullable().optional(),
    active: z.boolean().optional(),
  }),
).openapi('UpdateScoringRuleRequest');

export const ScoringRuleParams = WorkspaceParams.extend({ ruleId: z.string().min(1) });
export const PageQuery = z.object(pageQuery({ defaultLimit: 50, maxLimit: 200 }));
export const ScoringRulePage = paginated(ScoringRuleSchema).openapi('ScoringRulePage');

export const ScoreChangeSchema = z
  .object({
    id: z.string(),
    ruleId: z
      .string()
      .nullable()
      .openapi({ description: 'The rule that scored; null for decay and merges.' }),
    eventId: z.string().nullable(),
    reason: z.enum(['rule', 'decay', 'merge']),
    previousScore: z.number().int(),
    score: z.number().int(),
    delta: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('ScoreChange');
export const ScoreHistoryPage = paginated(ScoreChangeSchema).openapi('ScoreHistoryPage');
export { ContactParams };

const Decay = z
  .strictObject({
    points: z.number().int('must be a whole number').min(1).max(1000),
    // The decay job runs every minute, so a shorter period could not be honoured.
    every: IsoDuration.refine(
      (text) => (durationSeconds(text) ?? 0) >= 60,
      'must be at least a minute, e.g. P1D',
    ),
  })
  .openapi('ScoreDecay', {
    description: 'Every `every`, each lead score moves `points` towards zero (never past it).',
    example: { points: 5, every: 'P7D' },
  });

export const ScoringSettingsBody = z
  .strictObject({ decay: nullableRef(Decay) })
  .openapi('ScoringSettingsRequest');
export const ScoringSettingsSchema = z
  .object({ decay: nullableRef(Decay), lastDecayAt: Timestamp.nullable() })
  .openapi('ScoringSettings');

export const ScoreDistributionSchema = z
  .object({
    countedAt: Timestamp.openapi({
      description:
        'When the contacts were counted: now for a workspace of up to 100,000 contacts; for a larger one ' +
        'the last count, taken again in the background every 5 minutes while the distribution is read.',
    }),
    total: z.number().int().openapi({ description: 'Contacts in the workspace.' }),
    zero: z
      .number()
      .int()
      .openapi({ description: 'Contacts whose score is 0 (most, until rules score them).' }),
    min: z.number().int().nullable().openapi({ description: 'The lowest score; null without contacts.' }),
    max: z.number().int().nullable().openapi({ description: 'The highest score; null without contacts.' }),
    buckets: z
      .array(
        z.object({
          from: z.number().int().openapi({ description: 'The lowest score of the bucket (included).' }),
          to: z.number().int().openapi({ description: 'The highest score of the bucket (included).' }),
          count: z.number().int(),
        }),
      )
      .openapi({
        description:
          'About 20 buckets of one round width (1, 2 or 5 × a power of ten), from the lowest score to the ' +
          'highest, without gaps (empty buckets included); empty without contacts.',
      }),
  })
  .openapi('ScoreDistribution');
