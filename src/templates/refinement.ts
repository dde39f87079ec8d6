// A template field of a request body: one that does not parse is a 400 naming the field and the
// line, when it is saved, rather than a failure later (a failed message, a page that cannot render).
import type { z } from 'zod';
import type { TemplateKind } from './engine.ts';
import { validateTemplate } from './render.ts';

/** A zod refinement (`.superRefine(parsesAsTemplate('text'))`) checking that a source parses. */
export function parsesAsTemplate(kind: TemplateKind) {
  return (source: string, ctx: z.core.$RefinementCtx<string>) => {
    const problem = validateTemplate(source, kind);
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `line ${problem.line}, column ${problem.column}: ${problem.message}`,
      });
    }
  };
}
