// The conditions of the segment rule grammar as zod schemas: operators, the values each takes,
// and the four kinds of condition (field, attribute, event, leadScore). The tree that combines
// them, and the limits on its cost, are in ruleSchemas.ts.
import '../http/openapi.ts'; // .openapi() on zod schemas
import { z } from 'zod';
import { IsoDuration } from './duration.ts';
import { parseInstant } from './instant.ts';
export const OPS = [
  'eq',
  'neq',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'exists',
  'not_exists',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'not_in',
] as const;
export type Op = (typeof OPS)[number];
export const CONTACT_FIELDS = ['email', 'firstName', 'lastName', 'phone', 'createdAt'] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];

/** Limits of the grammar itself, fixed; the configurable limits on a tree's cost are in ruleCost.ts. */
export const RULE_LIMITS = {
  children: 50, // entries of one all / any
  where: 10, // metadata conditions of one event condition or scoring rule
  listValues: 100, // values of in / not_in
  stringLength: 1_000,
  pathSegments: 10,
};

export type Scalar = string | number | boolean;
export type MetadataCondition = { path: string; op: Op; value?: Scalar | Scalar[] };
export type Comparison = { gte?: number; gt?: number; lte?: number; lt?: number; eq?: number };
export type FieldCondition = { field: ContactField; op: Op; value?: string | string[] };
export type AttributeCondition = { attribute: string; op: Op; value?: Scalar | Scalar[] };
export type EventCondition = {
  event: string;
  count?: Comparison;
  within?: string;
  where?: MetadataCondition[];
};
export type LeadScoreCondition = { leadScore: Comparison };
export type Rule =
  | { all: Rule[] }
  | { any: Rule[] }
  | { not: Rule }
  | FieldCondition
  | AttributeCondition
  | EventCondition
  | LeadScoreCondition;

const PRESENCE: readonly Op[] = ['exists', 'not_exists'];
const ORDERING: readonly Op[] = ['gt', 'gte', 'lt', 'lte'];
const TEXT_MATCHING: readonly Op[] = ['contains', 'not_contains', 'starts_with', 'ends_with'];
const LISTS: readonly Op[] = ['in', 'not_in'];

/** Text PostgreSQL can store: NUL is refused here, as a 400, rather than by the database. */
export function safeText(max: number) {
  return z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !value.includes('\u0000'), 'must not contain NUL characters');
}

const Text = safeText(RULE_LIMITS.stringLength);
const ScalarValue = z.union([Text, z.number(), z.boolean()], {
  error: 'must be a string, a number or a boolean',
});
const ScalarList = z
  .array(ScalarValue)
  .min(1, 'must list at least one value')
  .max(RULE_LIMITS.listValues, `must list at most ${RULE_LIMITS.listValues} values`);
const Instant = z.string().refine((text) => parseInstant(text) !== null, {
  message: 'must be an ISO 8601 date or date-time, e.g. 2026-01-31 or 2026-01-31T09:00:00Z',
});

/** A dot path into a JSON object: `plan`, `address.city`, `items.0.sku`. */
export const JsonPath = safeText(200)
  .min(1, 'must not be empty')
  .refine((path) => path.split('.').every((segment) => segment.length > 0), {
    message: 'must be a dot path of non-empty keys, e.g. address.city',
  })
  .refine((path) => path.split('.').length <= RULE_LIMITS.pathSegments, {
    message: `must have at most ${RULE_LIMITS.pathSegments} keys`,
  });

/** Which values each operator takes on a JSON value (attributes and event metadata). */
function jsonValueSchema(op: Op): z.ZodType | null {
  if (PRESENCE.includes(op)) return null;
  if (TEXT_MATCHING.includes(op)) return Text.min(1, 'must not be empty');
  if (LISTS.includes(op)) return ScalarList;
  if (ORDERING.includes(op)) {
    return z.union([z.number(), Instant], {
      error: `${op} compares numbers, or ISO 8601 dates given as strings`,
    });
  }
  return ScalarValue;
}

function checkValue(
  schema: z.ZodType | null,
  condition: { op: Op; value?: unknown },
  ctx: z.core.$RefinementCtx,
) {
  if (schema === null) {
    if (condition.value !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `must be left out with ${condition.op}` });
    }
    return;
  }
  if (condition.value === undefined) {
    ctx.addIssue({ code: 'custom', path: ['value'], message: `is required with ${condition.op}` });
    return;
  }
  const result = schema.safeParse(condition.value);
  for (const issue of result.error?.issues ?? []) {
    ctx.addIssue({ code: 'custom', path: ['value', ...issue.path], message: issue.message });
  }
}

const OpSchema = z.enum(OPS, { error: `must be one of ${OPS.join(', ')}` });

export const MetadataCondition = z
  .strictObject({ path: JsonPath, op: OpSchema, value: z.unknown().optional() })
  .superRefine((condition, ctx) => checkValue(jsonValueSchema(condition.op), condition, ctx))
  .transform((condition) => condition as MetadataCondition)
  .openapi('MetadataCondition', {
    description:
      'A condition on a JSON value at a dot path; see the segments guide (docs/guides/segments.md) for type semantics.',
    example: { path: 'amount', op: 'gt', value: 100 },
  });

export const MetadataConditions = z
  .array(MetadataCondition)
  .max(RULE_LIMITS.where, `must hold at most ${RULE_LIMITS.where} conditions`)
  .openapi('MetadataConditions', { description: 'All must hold.' });

const TEXT_FIELD_OPS: readonly Op[] = OPS.filter((op) => !ORDERING.includes(op));
const DATE_FIELD_OPS: readonly Op[] = ['eq', 'neq', ...ORDERING];

function fieldValueSchema(field: ContactField, op: Op, ctx: z.core.$RefinementCtx): z.ZodType | null | false {
  const allowed = field === 'createdAt' ? DATE_FIELD_OPS : TEXT_FIELD_OPS;
  if (!allowed.includes(op)) {
    const kind = field === 'createdAt' ? 'a date-time' : 'text';
    ctx.addIssue({
      code: 'custom',
      path: ['op'],
      message: `${field} is ${kind}: use one of ${allowed.join(', ')}`,
    });
    return false;
  }
  if (field === 'createdAt') return Instant;
  if (PRESENCE.includes(op)) return null;
  if (LISTS.includes(op)) {
    return z.array(Text, { error: 'must be a list of strings' }).min(1).max(RULE_LIMITS.listValues);
  }
  return TEXT_MATCHING.includes(op) ? Text.min(1, 'must not be empty') : Text;
}

const FieldCondition = z
  .strictObject({
    field: z.enum(CONTACT_FIELDS, { error: `must be one of ${CONTACT_FIELDS.join(', ')}` }),
    op: OpSchema,
    value: z.unknown().optional(),
  })
  .superRefine((condition, ctx) => {
    const schema = fieldValueSchema(condition.field, condition.op, ctx);
    if (schema !== false) checkValue(schema, condition, ctx);
  });

const AttributeCondition = z
  .strictObject({ attribute: JsonPath, op: OpSchema, value: z.unknown().optional() })
  .superRefine((condition, ctx) => checkValue(jsonValueSchema(condition.op), condition, ctx));

function comparison(bounds: { min: number; max: number }) {
  const bound = z.number().int('must be a whole number').min(bounds.min).max(bounds.max);
  return z
    .strictObject({
      gte: bound.optional(),
      gt: bound.optional(),
      lte: bound.optional(),
      lt: bound.optional(),
      eq: bound.optional(),
    })
    .refine((value) => Object.keys(value).length > 0, {
      message: 'must give at least one of gte, gt, lte, lt, eq',
    });
}

const EventCondition = z.strictObject({
  event: safeText(200).min(1, 'must not be empty'),
  count: comparison({ min: 0, max: 1_000_000 }).optional(),
  within: IsoDuration.optional(),
  where: MetadataConditions.optional(),
});

const LeadScoreCondition = z.strictObject({
  leadScore: comparison({ min: -2_000_000_000, max: 2_000_000_000 }),
});

export const CONDITIONS = {
  field: FieldCondition,
  attribute: AttributeCondition,
  event: EventCondition,
  leadScore: LeadScoreCondition,
};
