// What the channels call: render an email (subject, HTML, text), a plain text (push, Telegram), or
// check a template when it is saved.
import { compile as compileHtmlToText } from 'html-to-text';
import { type CompiledTemplate, compileTemplate, parseTemplate } from './compile.ts';
import type { TemplateKind } from './engine.ts';
import { TemplateError, type TemplateField } from './errors.ts';
import { textToHtml } from './textBody.ts';
import type { TemplateVariables } from './variables.ts';

/** An email's sources: HTML, text or both (at least one); the preheader is plain text. */
export type EmailTemplate = {
  subject: string;
  html?: string | null;
  text?: string | null;
  preheader?: string | null;
};
/** `preheader` is null without one; withPreheader puts it in the HTML once tracking is added. */
export type RenderedEmail = { subject: string; html: string; text: string; preheader: string | null };
export type TemplateProblem = { line: number; column: number; message: string };

// The text part of an email without one: links as `text [url]` (the default), images dropped
// (their alt text is rarely meant to be read), headings in their own case, lines wrapped for mail
// readers.
const htmlToText = compileHtmlToText({
  wordwrap: 78,
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
});

function compiled(source: string, kind: TemplateKind, cacheKey: string | undefined): CompiledTemplate {
  // Without a key (previews, one-off messages) the source is parsed each time and not kept, so
  // one-off sources cannot push the campaigns' templates out of the cache.
  return cacheKey === undefined ? parseTemplate(source, kind) : compileTemplate(cacheKey, source, kind);
}

function renderField(
  field: TemplateField,
  source: string,
  kind: TemplateKind,
  variables: TemplateVariables,
  cacheKey: string | undefined,
): string {
  try {
    return compiled(source, kind, cacheKey === undefined ? undefined : `${cacheKey}:${field}`).render(
      variables,
    );
  } catch (error) {
    if (error instanceof TemplateError) error.field = field;
    throw error;
  }
}

/**
 * Renders an email. The HTML body is HTML-escaped (`{{ x | raw }}` opts out); the subject, the
 * preheader and the text part are not. Without a text template, the text part is generated from the
 * rendered HTML; without an HTML template, the HTML part shows the rendered text as written
 * (textToHtml). Throws a TemplateError whose `field` says which part failed.
 */
export function renderEmail(
  template: EmailTemplate,
  variables: TemplateVariables,
  cacheKey?: string,
): RenderedEmail {
  const subject = renderField('subject', template.subject, 'text', variables, cacheKey);
  const preheader =
    template.preheader == null
      ? null
      : renderField('preheader', template.preheader, 'text', variables, cacheKey);
  if (template.html == null) {
    const text = renderField('text', template.text ?? '', 'text', variables, cacheKey);
    return { subject, html: textToHtml(text), text, preheader };
  }
  const html = renderField('html', template.html, 'html', variables, cacheKey);
  const text =
    template.text == null
      ? htmlToText(html)
      : renderField('text', template.text, 'text', variables, cacheKey);
  return { subject, html, text, preheader };
}

/**
 * Renders a plain-text template (push, Telegram, SMS): nothing is escaped, unless `kind` is 'html'
 * (a Telegram text sent with parse mode HTML, where a contact's `<` would break the message).
 * Throws a TemplateError.
 */
export function renderText(
  source: string,
  variables: TemplateVariables,
  cacheKey?: string,
  kind: TemplateKind = 'text',
): string {
  return compiled(source, kind, cacheKey).render(variables);
}

/** A save-time check: null when the source parses, else where and why it does not. */
export function validateTemplate(source: string, kind: TemplateKind): TemplateProblem | null {
  try {
    parseTemplate(source, kind);
    return null;
  } catch (error) {
    if (error instanceof TemplateError) return error.toJSON();
    throw error;
  }
}
