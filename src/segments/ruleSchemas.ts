// The segment rule grammar's tree: all / any / not over the conditions of conditionSchemas.ts, and
// the limits on its cost (ruleCost.ts). A rule node is picked by its key (all, any, not, field,
// attribute, event, leadScore) before it is parsed, so a mistake is reported at its own path
// (`rules.all.1.op`) instead of as "no branch of the union matched".
import '../http/openapi.ts'; // .openapi() on zod schemas
import { z } from 'zod';
import { CONDITIONS, OPS, RULE_LIMITS, type Rule } from './conditionSchemas.ts';
import { ruleCostLimits, ruleCostProblems } from './ruleCost.ts';

export * from './conditionSchemas.ts';

function combinators(depth: number) {
  const child = ruleNode(depth + 1);
  const list = z
    .array(child)
    .min(1, 'must hold at least one rule')
    .max(RULE_LIMITS.children, `must hold at most ${RULE_LIMITS.children} rules`);
  return {
    all: z.strictObject({ all: list }),
    any: z.strictObject({ any: list }),
    not: z.strictObject({ not: child }),
  };
}

const NODE_KEYS = ['all', 'any', 'not', 'field', 'attribute', 'event', 'leadScore'] as const;

/** The combinators at each depth, built when first reached: the depth limit is configuration. */
const combinatorsAt = new Map<number, ReturnType<typeof combinators>>();

function nestedAt(depth: number) {
  if (depth > ruleCostLimits().depth) return null;
  let nested = combinatorsAt.get(depth);
  if (!nested) {
    nested = combinators(depth);
    combinatorsAt.set(depth, nested);
  }
  return nested;
}

/** The schema of a node `depth` levels deep (1 = the root); past the depth limit, no combinators. */
function ruleNode(depth: number): z.ZodType<Rule> {
  return z.unknown().transform((value, ctx): Rule => {
    const key =
      value && typeof value === 'object' && !Array.isArray(value)
        ? NODE_KEYS.find((name) => name in value)
        : undefined;
    if (!key) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an object with one of: all, any, not, field, attribute, event, leadScore',
      });
      return z.NEVER;
    }
    const schema =
      key in CONDITIONS ? CONDITIONS[key as keyof typeof CONDITIONS] : nestedAt(depth)?.[key as 'all'];
    if (!schema) {
      ctx.addIssue({
        code: 'custom',
        message: `rules nest more than ${ruleCostLimits().depth} levels deep (the limit of nesting)`,
      });
      return z.NEVER;
    }
    const result = schema.safeParse(value);
    if (result.success) return result.data as Rule;
    for (const issue of result.error.issues) {
      // Unknown keys keep their code, so that the answer names each key (http/validation.ts).
      if (issue.code === 'unrecognized_keys') ctx.addIssue({ ...issue });
      else ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
    return z.NEVER;
  }) as unknown as z.ZodType<Rule>;
}

export const SegmentRules = ruleNode(1)
  .superRefine((rule, ctx) => {
    // One message for the field (as for every field), naming each limit the tree is past.
    const problems = ruleCostProblems(rule);
    if (problems.length > 0) ctx.addIssue({ code: 'custom', message: problems.join('; ') });
  })
  .openapi('SegmentRules', {
    type: 'object',
    description:
      '`{all: [rule…]}` | `{any: [rule…]}` | `{not: rule}` | a condition: ' +
      '`{field: email|firstName|lastName|phone|createdAt, op, value}`, `{attribute: "address.city", op, value}`, ' +
      '`{event: "purchase", count?: {gte|gt|lte|lt|eq: n}, within?: "P30D", where?: [{path, op, value}]}` ' +
      '(count defaults to gte 1), `{leadScore: {gte|gt|lte|lt|eq: n}}`. ' +
      `op: ${OPS.join(' ')}. A tree is limited in nesting, conditions, event conditions and \`where\` ` +
      'clauses (by default 5 levels, 50 conditions, 10 event conditions, 20 `where` clauses; a tree ' +
      'past a limit is a 400 naming it). Type semantics and limits are in the segments guide ' +
      '(docs/guides/segments.md).',
    example: {
      all: [
        { attribute: 'plan', op: 'eq', value: 'pro' },
        {
          event: 'purchase',
          count: { gte: 2 },
          within: 'P30D',
          where: [{ path: 'amount', op: 'gt', value: 100 }],
        },
      ],
    },
  });
