// The two liquidjs engines every template goes through, configured so that a template written by a
// workspace member cannot read files, reach JavaScript internals or exhaust the process.
//
// Escaping is decided when a template is parsed (liquidjs appends an `escape` filter to each output
// tag), so HTML email bodies and plain outputs (subjects, text parts, push, Telegram) need separate
// engines, and a parsed template belongs to the engine that parsed it.
import { Liquid, type LiquidOptions } from 'liquidjs';
import { guardCapture, guardedOperators, guardFilters } from './guards.ts';

export type TemplateKind = 'html' | 'text';

// Limits, fixed here rather than configurable: a realistic email renders in ~0.15 ms and parses in
// ~0.15 ms, so these leave three orders of magnitude of headroom and only ever stop abuse.
/** Longest template source, in characters (a large HTML email is ~100 KB). */
export const PARSE_LIMIT = 1_000_000;
/**
 * Longest a single render may take, in milliseconds; a render is synchronous and holds its process's
 * event loop. Checked between tags (liquidjs) and before and after every filter and operator call
 * (guards.ts); the work budget (budget.ts) bounds what one call can do in between.
 */
export const RENDER_LIMIT_MS = 250;
/**
 * liquidjs' allocation budget per render (range sizes, string lengths built by filters, ...). A
 * range is built in one uninterruptible step (~60 ns an item): this keeps the longest such step
 * to tens of milliseconds while leaving ten times a large email's length for strings.
 */
export const MEMORY_LIMIT = 500_000;

const SAFE_OPTIONS: LiquidOptions = {
  // In-memory partials only (none): the default engine reads templates from the working directory.
  templates: {},
  strictFilters: true, // `{{ x | evil }}` is a parse error, not a silent pass-through
  ownPropertyOnly: true, // `{{ contact.constructor }}` renders empty: no prototype chain
  // A missing variable renders empty (strictVariables off), as the product promises.
  parseLimit: PARSE_LIMIT,
  renderLimit: RENDER_LIMIT_MS,
  memoryLimit: MEMORY_LIMIT,
  operators: guardedOperators(),
};

// Templates are self-contained: with no partials stored, these tags could only fail at send time,
// so they are refused when the template is parsed, with a message that says why.
const REFUSED_TAGS = ['include', 'render', 'layout'];

function refusedTag(name: string): Parameters<Liquid['registerTag']>[1] {
  return {
    parse() {
      throw new Error(`{% ${name} %} is not supported: a template cannot load other templates or files`);
    },
    render() {},
  };
}

function createEngine(kind: TemplateKind): Liquid {
  const engine = new Liquid({ ...SAFE_OPTIONS, outputEscape: kind === 'html' ? 'escape' : undefined });
  for (const name of REFUSED_TAGS) engine.registerTag(name, refusedTag(name));
  guardFilters(engine);
  guardCapture(engine);
  return engine;
}

export const engines: Record<TemplateKind, Liquid> = {
  html: createEngine('html'),
  text: createEngine('text'),
};
