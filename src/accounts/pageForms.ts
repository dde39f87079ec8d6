// What the account pages share: a page with one form (errors, a notice, the CSRF and `next`
// fields), reading a form's text fields, and showing a service error on the page.
import type { Request, Response } from 'express';
import { AppError } from '../core/errors.ts';
import { escapeHtml, layout } from '../http/html.ts';

export const FORM_EXPIRED = 'Your form expired. Please try again.';

export type FormState = {
  token: string;
  next: string;
  errors?: string[];
  /** A line of good news above the form (a changed password, a mail sent). */
  notice?: string;
  values?: Record<string, string>;
};

function errorList(errors: string[] = []): string {
  if (errors.length === 0) return '';
  if (errors.length === 1) return `<p class="error" role="alert">${escapeHtml(errors[0])}</p>`;
  return `<ul class="error" role="alert">${errors.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>`;
}

function noticeLine(notice?: string): string {
  return notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : '';
}

export function hiddenFields({ token, next }: FormState): string {
  return `<input type="hidden" name="_csrf" value="${token}">
  <input type="hidden" name="next" value="${escapeHtml(next)}">`;
}

export function emailField(state: FormState, autocomplete = 'username'): string {
  return `<label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="${autocomplete}" required value="${escapeHtml(state.values?.email ?? '')}">`;
}

/** A page with one form: heading, errors, the CSRF and `next` fields, then the page's own. */
export function formPage(
  state: FormState,
  page: { title: string; heading: string; action: string; fields: string; footer: string; button?: string },
) {
  return layout(
    page.title,
    `<h1>${page.heading}</h1>
${noticeLine(state.notice)}${errorList(state.errors)}
<form method="post" action="${page.action}">
  ${hiddenFields(state)}
  ${page.fields}
  <button type="submit">${page.button ?? page.title}</button>
</form>
<p>${page.footer}</p>`,
  );
}

/** The form's text field, or '' (a NUL cannot match any stored text, and PostgreSQL refuses it). */
export function field(req: Request, name: string): string {
  const value = req.body?.[name];
  return typeof value === 'string' && !value.includes('\u0000') ? value : '';
}

/** A text of the query string, or '' (the same rule as a form field). */
export function queryText(req: Request, name: string): string {
  const value = req.query[name];
  return typeof value === 'string' && !value.includes('\u0000') ? value : '';
}

/**
 * A service error as the page's message, with its status and headers: the limits' messages say
 * when to try again, a conflict says what is in the way; anything else is `fallback`, which the
 * page words for what can go wrong there.
 */
export function pageError(res: Response, error: unknown, fallback: string): string {
  if (!(error instanceof AppError)) throw error;
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status);
  return error.status === 429 || error.status === 503 || error.status === 409 ? error.message : fallback;
}
