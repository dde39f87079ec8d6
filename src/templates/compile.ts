// Parsed templates, cached: parsing costs about as much as rendering, and a campaign step renders
// the same few sources for every recipient. liquidjs' own `cache` option only caches file lookups.
import type { Template } from 'liquidjs';
import { LRUCache } from 'lru-cache';
import { chargeWork, RENDER_LIMIT_MESSAGE, WORK_LIMIT, withBudget } from './budget.ts';
import { engines, RENDER_LIMIT_MS, type TemplateKind } from './engine.ts';
import { toTemplateError } from './errors.ts';
import type { TemplateVariables } from './variables.ts';

/**
 * A render stopped by the time limit is tried once more only when it had counted less work than
 * this: it was then held by something else (a garbage-collection pause, a busy machine), not by
 * the template, which would be as slow again and hold the process twice.
 */
const RETRY_BELOW_WORK = WORK_LIMIT / 100;

/** Most parsed templates kept; a campaign step has 2-3 (subject, HTML, text). */
export const TEMPLATE_CACHE_ENTRIES = 1_000;
/** ...and at most this many characters of source (and keys) behind them, whatever their count. */
const TEMPLATE_CACHE_CHARACTERS = 50_000_000;

export type CompiledTemplate = {
  readonly kind: TemplateKind;
  /** Renders synchronously; throws a TemplateError (with line and column) when the template fails. */
  render(variables: TemplateVariables): string;
};

const cache = new LRUCache<string, CompiledTemplate>({
  max: TEMPLATE_CACHE_ENTRIES,
  maxSize: TEMPLATE_CACHE_CHARACTERS, // each entry's size is twice its source's length (set() says why)
});

/** Parses a source (no cache); throws a TemplateError on a syntax error. */
export function parseTemplate(source: string, kind: TemplateKind): CompiledTemplate {
  const engine = engines[kind];
  let templates: Template[];
  try {
    templates = engine.parse(source);
  } catch (error) {
    throw toTemplateError(error);
  }
  return Object.freeze({
    kind,
    render(variables: TemplateVariables): string {
      const renderOnce = () =>
        withBudget(RENDER_LIMIT_MS, () => {
          const output = String(engine.renderSync(templates, variables));
          chargeWork(output.length); // a loop's output is made without any filter seeing it
          return output;
        });
      let attempt = renderOnce();
      // The time limit counts wall-clock time: one garbage-collection pause or a busy machine can
      // outlast it for a render that takes a fraction of a millisecond.
      if (isTimeLimit(attempt.error) && attempt.work < RETRY_BELOW_WORK) attempt = renderOnce();
      if (attempt.error !== undefined) throw toTemplateError(attempt.error);
      return attempt.result as string;
    },
  });
}

function isTimeLimit(error: unknown): boolean {
  if (error === undefined) return false;
  const cause = (error as { originalError?: Error }).originalError ?? (error as Error);
  return (
    cause?.message === RENDER_LIMIT_MESSAGE || (error as Error).message?.startsWith(RENDER_LIMIT_MESSAGE)
  );
}

/**
 * The parsed template for `key` (the caller's identity of the source, e.g. campaign id + version +
 * step path + field) and this exact source: a changed source under the same key is parsed anew,
 * never served stale. Failed parses are not cached.
 */
export function compileTemplate(key: string, source: string, kind: TemplateKind = 'text'): CompiledTemplate {
  // The source itself is in the key: a Map lookup hashes it far faster than a digest of it would
  // (a broadcast looks up each of a step's templates for every message).
  const cacheKey = `${kind}\u0000${key}\u0000${source}`;
  let compiled = cache.get(cacheKey);
  if (!compiled) {
    compiled = parseTemplate(source, kind);
    // The key holds a copy of the source: counted twice.
    cache.set(cacheKey, compiled, { size: Math.max(1, 2 * source.length) });
  }
  return compiled;
}
