// What a visitor typed, checked against the form's fields: each value in its type's shape, the
// required ones present, nothing the form does not have. Errors name the field, so the hosted
// page can show each beside its input and JSON callers get `body.<key>` paths.

import type { FieldError } from '../core/errors.ts';
import { isEmailAddress, normaliseEmailText } from '../http/email.ts';
import { type FormField, HONEYPOT } from './schemas.ts';

export type Submitted = Record<string, string | boolean>;
export type Checked = { values: Submitted; errors: FieldError[] };

const TEXT_MAX = 1000;
const PHONE = /^\+?[0-9 ().-]{3,50}$/;
const TRUE_VALUES = new Set(['on', 'true', '1', 'yes']);

function checkOne(field: FormField, raw: unknown): { value?: string | boolean; error?: string } {
  if (field.type === 'checkbox') {
    const checked = raw === true || (typeof raw === 'string' && TRUE_VALUES.has(raw.toLowerCase()));
    if (field.required && !checked) return { error: 'must be ticked' };
    return { value: checked };
  }
  if (raw !== undefined && typeof raw !== 'string') return { error: 'must be text' };
  const text = (raw ?? (field.type === 'hidden' ? (field.value ?? '') : '')).trim();
  if (text === '') return field.required ? { error: 'is required' } : {};
  if (text.length > TEXT_MAX) return { error: `must be at most ${TEXT_MAX} characters` };
  if (field.type === 'email') {
    const email = normaliseEmailText(text);
    return isEmailAddress(email) ? { value: email } : { error: 'must be an email address' };
  }
  if (field.type === 'tel' && !PHONE.test(text)) return { error: 'must be a phone number' };
  return { value: text };
}

/** The form's values from a parsed body (a File or an array, from multipart or JSON, is refused). */
export function checkValues(fields: readonly FormField[], body: Record<string, unknown>): Checked {
  const values: Submitted = {};
  const errors: FieldError[] = [];
  const known = new Set(fields.map((field) => field.key));
  for (const key of Object.keys(body)) {
    if (!known.has(key) && key !== HONEYPOT)
      errors.push({ path: `body.${key}`, message: 'is not a field of this form' });
  }
  for (const field of fields) {
    const { value, error } = checkOne(field, body[field.key]);
    if (error) errors.push({ path: `body.${field.key}`, message: error });
    else if (value !== undefined) values[field.key] = value;
  }
  return { values, errors };
}

/** A bot fills every input it finds, the hidden honeypot too; a person never sees it. */
export function caughtByHoneypot(body: Record<string, unknown>): boolean {
  const value = body[HONEYPOT];
  return value !== undefined && value !== '';
}
