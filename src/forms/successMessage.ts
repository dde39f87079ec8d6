// The message a visitor reads after a submission (the thank-you page, and `message` in the JSON
// answer) is a Liquid template, checked when the form is saved. It sees only what was submitted:
// each field by its key (`{{ first }}`, and `fields.first` for a key a built-in name hides), the
// contact's fields as this submission gave them (`contact.firstName`), and `form.name`. Never
// what the contact record already holds: anyone can type anyone's address into a public form, and
// the page would show that person's stored name to whoever did.
import { renderText, TemplateError, type TemplateVariables } from '../templates/index.ts';
import type { FormRow } from './queries.ts';
import type { Submitted } from './values.ts';

export const DEFAULT_SUCCESS_MESSAGE = 'Thank you: your answer was received.';

/** The contact as the submission describes it, from the fields mapped onto it. */
function submittedContact(form: FormRow, values: Submitted) {
  const contact: { attributes: Record<string, unknown> } & Record<string, unknown> = { attributes: {} };
  for (const field of form.fields) {
    const value = values[field.key];
    if (value === undefined || !field.mapTo) continue;
    if ('attribute' in field.mapTo) contact.attributes[field.mapTo.attribute] = value;
    else contact[field.mapTo.contactField] = value;
  }
  return contact;
}

/**
 * The rendered message as plain text (the page escapes it as a whole, so neither what a visitor
 * typed nor the form's own text can add markup). A render that fails at display time (the
 * templates kit's time or memory limit) shows the default message: the submission is stored.
 */
export function successText(form: FormRow, values: Submitted): string {
  if (!form.success_message) return DEFAULT_SUCCESS_MESSAGE;
  // Built-in names win over field keys, as the message variables do over a send's data.
  const variables = {
    ...values,
    fields: values,
    contact: submittedContact(form, values),
    form: { name: form.name },
  } as TemplateVariables;
  try {
    return renderText(form.success_message, variables, `form:${form.id}:successMessage`);
  } catch (error) {
    if (error instanceof TemplateError) return DEFAULT_SUCCESS_MESSAGE;
    throw error;
  }
}
