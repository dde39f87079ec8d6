// Templates: Liquid rendering for every channel, as a kit that knows no feature. Callers pass plain
// data (TemplateVariables) and turn a TemplateError into their own answer (a 400 at preview, a
// failed message at send time).
export { type CompiledTemplate, compileTemplate, TEMPLATE_CACHE_ENTRIES } from './compile.ts';
export { MEMORY_LIMIT, PARSE_LIMIT, RENDER_LIMIT_MS, type TemplateKind } from './engine.ts';
export { TemplateError, type TemplateField } from './errors.ts';
export { withPreheader } from './preheader.ts';
export { parsesAsTemplate } from './refinement.ts';
export {
  type EmailTemplate,
  type RenderedEmail,
  renderEmail,
  renderText,
  type TemplateProblem,
  validateTemplate,
} from './render.ts';
export { looksLikeHtml } from './textBody.ts';
export { type TemplateVariables, TemplateVariablesSchema } from './variables.ts';
