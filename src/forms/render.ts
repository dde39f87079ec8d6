// The hosted form's HTML: one self-contained page (inline styles, no scripts, no outside assets),
// labelled inputs, errors announced in a summary and tied to each input (aria-describedby,
// aria-invalid), and a honeypot input that people never see and bots fill in.
import type { FieldError } from '../core/errors.ts';
import { escapeHtml, layout } from '../http/html.ts';
import type { FormRow } from './queries.ts';
import { type FormField, HONEYPOT } from './schemas.ts';

const AUTOCOMPLETE: Record<string, string> = {
  email: 'email',
  firstName: 'given-name',
  lastName: 'family-name',
  phone: 'tel',
};

const EXTRA_STYLE = `<style>
  .hp { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
  .check { display: flex; gap: .5rem; align-items: center; margin-top: 1rem; }
  .check input { width: auto; } .check label { margin: 0; font-weight: 400; }
  .field-error { color: #a11; margin: .25rem 0 0; font-size: .9rem; }
  [aria-invalid="true"] { border-color: #a11; }
</style>`;

const REQUIRED_MARKER = ' <span aria-hidden="true">*</span>';

/** The page's content security policy: nothing loads from anywhere; the form posts to us. */
export function formPagePolicy(form: FormRow): string {
  const redirect = form.redirect_url ? ` ${new URL(form.redirect_url).origin}` : '';
  return `default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'${redirect}; base-uri 'none'`;
}

function inputFor(field: FormField, value: string | undefined, error: string | undefined): string {
  const id = `f-${field.key}`;
  const describedBy = error ? ` aria-describedby="${id}-error" aria-invalid="true"` : '';
  const required = field.required ? ' required aria-required="true"' : '';
  // Seen by sighted people; screen readers announce `required` from the input itself.
  const marker = field.required ? REQUIRED_MARKER : '';
  const message = error
    ? `<p class="field-error" id="${id}-error">${escapeHtml(`${field.label} ${error}`)}</p>`
    : '';
  if (field.type === 'hidden') {
    return `<input type="hidden" name="${field.key}" value="${escapeHtml(value ?? field.value ?? '')}">`;
  }
  if (field.type === 'checkbox') {
    const checked = value !== undefined && value !== '' ? ' checked' : '';
    return `<div class="check"><input type="checkbox" id="${id}" name="${field.key}" value="on"${checked}${required}${describedBy}>
<label for="${id}">${escapeHtml(field.label)}${marker}</label></div>${message}`;
  }
  const contactField = field.mapTo && 'contactField' in field.mapTo ? field.mapTo.contactField : undefined;
  const autocomplete = contactField ? ` autocomplete="${AUTOCOMPLETE[contactField]}"` : '';
  const shown = value === undefined ? '' : ` value="${escapeHtml(value)}"`;
  return `<label for="${id}">${escapeHtml(field.label)}${marker}</label>
<input type="${field.type}" id="${id}" name="${field.key}"${shown}${autocomplete}${required}${describedBy}>${message}`;
}

function errorSummary(form: FormRow, errors: FieldError[]): string {
  if (errors.length === 0) return '';
  const labels = new Map(form.fields.map((field) => [`body.${field.key}`, field]));
  const items = errors
    .map((error) => {
      const field = labels.get(error.path);
      const text = escapeHtml(field ? `${field.label} ${error.message}` : error.message);
      return field && field.type !== 'hidden'
        ? `<li><a href="#f-${field.key}">${text}</a></li>`
        : `<li>${text}</li>`;
    })
    .join('');
  return `<div class="error" role="alert"><p>Please correct the following:</p><ul>${items}</ul></div>`;
}

/** The form, empty or as the visitor filled it with the errors to correct. */
export function formPage(
  form: FormRow,
  options: { values?: Record<string, unknown>; errors?: FieldError[] } = {},
): string {
  const errors = options.errors ?? [];
  const byPath = new Map(errors.map((error) => [error.path, error.message]));
  const inputs = form.fields
    .map((field) => {
      const raw = options.values?.[field.key];
      return inputFor(field, typeof raw === 'string' ? raw : undefined, byPath.get(`body.${field.key}`));
    })
    .join('\n');
  return layout(
    form.name,
    `${EXTRA_STYLE}<h1>${escapeHtml(form.name)}</h1>
${errorSummary(form, errors)}
<form method="post" action="/f/${form.id}">
${inputs}
<div class="hp" aria-hidden="true"><label for="f-${HONEYPOT}">Leave this field empty</label>
<input type="text" id="f-${HONEYPOT}" name="${HONEYPOT}" tabindex="-1" autocomplete="off"></div>
<button type="submit">Submit</button>
</form>`,
  );
}

/** `message`: the form's success message, rendered (successMessage.ts); escaped here as a whole. */
export function thankYouPage(form: FormRow, message: string, pending: boolean): string {
  const confirm = pending
    ? '<p>We sent you an email (unless we did recently): follow its link to confirm your subscription.</p>'
    : '';
  return layout(form.name, `<h1>Thank you</h1><p role="status">${escapeHtml(message)}</p>${confirm}`);
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`);
}

export function confirmPage(): string {
  return layout(
    'Confirm your subscription',
    `<h1>Confirm your subscription</h1><form method="post"><p>Press the button to confirm that you want to receive our emails.</p>
<button type="submit">Confirm my subscription</button></form>`,
  );
}
