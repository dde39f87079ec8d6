// The form editor of the console: a form's definition as one HTML form that works with JavaScript
// off. Its fields travel as numbered inputs (`field.0.label`, …); "Add field", "Remove", "Up" and
// "Down" are submit buttons (`op`) that send the whole form back, and the page is rendered again
// with the change applied, so nothing typed is lost. "Save" sends the definition through the API's
// own schema and service; what they refuse is shown beside the input whose path it names.
import type { Request, Response } from 'express';
import { csrfField, formText, html, type SafeHtml } from '../console/index.ts';
import type { FieldError } from '../core/errors.ts';
import { CONTACT_FIELDS, FIELD_TYPES, type FormField } from './schemas.ts';

/** One field as the editor holds it: text as typed, so a refused value comes back as it was. */
export type DraftField = {
  key: string;
  label: string;
  type: string;
  required: boolean;
  /** '' (kept in the submission only), a contact field, or 'attribute'. */
  mapTo: string;
  attribute: string;
  value: string;
};

export type Draft = {
  name: string;
  fields: DraftField[];
  doubleOptIn: boolean;
  successMessage: string;
  redirectUrl: string;
};

/** The editor can hold a few more fields than the API takes, so the refusal is the API's own. */
const MAX_FIELDS = 60;

const CONTACT_FIELD_LABELS: Record<(typeof CONTACT_FIELDS)[number], string> = {
  email: 'Contact: email',
  firstName: 'Contact: first name',
  lastName: 'Contact: last name',
  phone: 'Contact: phone',
};

export const STARTER: Draft = {
  name: '',
  fields: [
    {
      key: 'email',
      label: 'Email',
      type: 'email',
      required: true,
      mapTo: 'email',
      attribute: '',
      value: '',
    },
  ],
  doubleOptIn: false,
  successMessage: '',
  redirectUrl: '',
};

export function draftOf(form: {
  name: string;
  fields: FormField[];
  doubleOptIn: boolean;
  successMessage: string | null;
  redirectUrl: string | null;
}): Draft {
  return {
    name: form.name,
    fields: form.fields.map((field) => ({
      key: field.key,
      label: field.label,
      type: field.type,
      required: field.required,
      mapTo: !field.mapTo ? '' : 'contactField' in field.mapTo ? field.mapTo.contactField : 'attribute',
      attribute: field.mapTo && 'attribute' in field.mapTo ? field.mapTo.attribute : '',
      value: field.value ?? '',
    })),
    doubleOptIn: form.doubleOptIn,
    successMessage: form.successMessage ?? '',
    redirectUrl: form.redirectUrl ?? '',
  };
}

/** The editor's state as it was posted. */
export function readDraft(req: Request): Draft {
  const count = Math.min(Number.parseInt(formText(req, 'fieldCount'), 10) || 0, MAX_FIELDS);
  const fields: DraftField[] = [];
  for (let i = 0; i < count; i++) {
    const text = (name: string) => formText(req, `field.${i}.${name}`);
    fields.push({
      key: text('key').trim(),
      label: text('label'),
      type: text('type'),
      required: text('required') === 'yes',
      mapTo: text('mapTo'),
      attribute: text('attribute').trim(),
      value: text('value'),
    });
  }
  return {
    name: formText(req, 'name'),
    fields,
    doubleOptIn: formText(req, 'doubleOptIn') === 'yes',
    successMessage: formText(req, 'successMessage'),
    redirectUrl: formText(req, 'redirectUrl').trim(),
  };
}

/** A key made from the label when none was typed: "First name" → "first_name". */
function keyFromLabel(label: string): string {
  const words = label
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase();
  const key = words.replaceAll(' ', '_').slice(0, 64);
  return /^[a-z]/.test(key) ? key : key ? `f_${key}`.slice(0, 64) : '';
}

/** The draft as the API's body: parsed by CreateFormBody / UpdateFormBody, never trusted as is. */
export function bodyOf(draft: Draft, options: { clearEmpty: boolean }) {
  const optional = (value: string) => (value.trim() !== '' ? value : options.clearEmpty ? null : undefined);
  return {
    name: draft.name,
    fields: draft.fields.map((field) => ({
      key: field.key || keyFromLabel(field.label),
      label: field.label,
      type: field.type,
      required: field.required,
      ...(field.mapTo === ''
        ? {}
        : field.mapTo === 'attribute'
          ? { mapTo: { attribute: field.attribute || field.key || keyFromLabel(field.label) } }
          : { mapTo: { contactField: field.mapTo } }),
      ...(field.value !== '' ? { value: field.value } : {}),
    })),
    doubleOptIn: draft.doubleOptIn,
    successMessage: optional(draft.successMessage),
    redirectUrl: optional(draft.redirectUrl),
  };
}

/**
 * Applies an editing button (`add`, `remove:2`, `up:2`, `down:2`) to the draft; null for `save`
 * (or anything else: pressing Enter in an input sends the form's first button, which saves).
 */
export function applyEdit(draft: Draft, op: string): Draft | null {
  const [what, at] = op.split(':');
  const index = Number.parseInt(at ?? '', 10);
  const fields = [...draft.fields];
  if (what === 'add') {
    if (fields.length >= MAX_FIELDS) return draft;
    fields.push({
      // Left empty, the key is made from the label when the form is saved.
      key: '',
      label: '',
      type: 'text',
      required: false,
      mapTo: '',
      attribute: '',
      value: '',
    });
    return { ...draft, fields };
  }
  if (!Number.isInteger(index) || index < 0 || index >= fields.length) return null;
  if (what === 'remove') fields.splice(index, 1);
  else if (what === 'up' && index > 0)
    [fields[index - 1], fields[index]] = [fields[index], fields[index - 1]];
  else if (what === 'down' && index < fields.length - 1)
    [fields[index], fields[index + 1]] = [fields[index + 1], fields[index]];
  else if (what !== 'up' && what !== 'down') return null;
  return { ...draft, fields };
}

// ---- Rendering ----

/** Refusals by the input they name: `name`, `fields.2.label`, `fields` (the list as a whole). */
export type Refusals = Map<string, string[]>;

export function refusalsOf(errors: FieldError[]): Refusals {
  const out: Refusals = new Map();
  for (const error of errors) {
    const path = error.path.replace(/^body\.?/, '');
    out.set(path, [...(out.get(path) ?? []), error.message]);
  }
  return out;
}

/** The attributes that tie an input to its error (aria-describedby) and the error itself. */
function errorOf(refusals: Refusals, path: string, id: string) {
  const messages = refusals.get(path);
  if (!messages) return { attributes: html``, message: html`` };
  return {
    attributes: html` aria-invalid="true" aria-describedby="${id}-error"`,
    message: html`<p class="field-error" id="${id}-error">${messages.join(' · ')}</p>`,
  };
}

function options(values: readonly [string, string][], selected: string): SafeHtml[] {
  return values.map(
    ([value, label]) =>
      html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`,
  );
}

const MAP_OPTIONS: [string, string][] = [
  ['', 'Kept in the submission only'],
  ...CONTACT_FIELDS.map((field): [string, string] => [field, CONTACT_FIELD_LABELS[field]]),
  ['attribute', 'Contact attribute'],
];

function fieldRow(field: DraftField, i: number, count: number, refusals: Refusals): SafeHtml {
  const id = (name: string) => `field-${i}-${name}`;
  const input = (name: keyof DraftField, label: string, extra: SafeHtml = html``) => {
    const error = errorOf(refusals, `fields.${i}.${name}`, id(name));
    return html`<div><label for="${id(name)}">${label}</label><input id="${id(name)}" name="field.${i}.${name}" value="${String(field[name])}" autocomplete="off"${extra}${error.attributes}>${error.message}</div>`;
  };
  const type = errorOf(refusals, `fields.${i}.type`, id('type'));
  const mapTo = errorOf(refusals, `fields.${i}.mapTo`, id('mapTo'));
  const other = [...refusals.entries()].filter(
    ([path]) => path === `fields.${i}` || path.startsWith(`fields.${i}.mapTo.`),
  );
  const number = i + 1;
  return html`<fieldset class="form-field" data-field="${i}"><legend>Field ${number}${field.label.trim() ? html`: ${field.label}` : ''}</legend>
${other.map(([, messages]) => html`<p class="field-error">${messages.join(' · ')}</p>`)}
<div class="form-field-inputs">
${input('label', 'Label', html` required maxlength="200"`)}
${input('key', 'Key', html` spellcheck="false" pattern="[A-Za-z][A-Za-z0-9_]{0,63}" placeholder="from the label"`)}
<div><label for="${id('type')}">Type</label><select id="${id('type')}" name="field.${i}.type"${type.attributes}>${options(
    FIELD_TYPES.map((t) => [t, t]),
    field.type,
  )}</select>${type.message}</div>
<div><label for="${id('mapTo')}">Saved as</label><select id="${id('mapTo')}" name="field.${i}.mapTo"${mapTo.attributes}>${options(MAP_OPTIONS, field.mapTo)}</select>${mapTo.message}</div>
${input('attribute', 'Attribute name (when saved as an attribute)', html` spellcheck="false" placeholder="the key"`)}
${input('value', 'Value sent by a hidden field')}
</div>
<label class="check"><input type="checkbox" name="field.${i}.required" value="yes"${field.required ? html` checked` : ''}> Required</label>
<div class="form-field-actions">
<button type="submit" class="quiet" name="op" value="up:${i}"${i === 0 ? html` disabled` : ''}>Up<span class="visually-hidden"> (field ${number})</span></button>
<button type="submit" class="quiet" name="op" value="down:${i}"${i === count - 1 ? html` disabled` : ''}>Down<span class="visually-hidden"> (field ${number})</span></button>
<button type="submit" class="quiet danger" name="op" value="remove:${i}">Remove<span class="visually-hidden"> field ${number}</span></button>
</div></fieldset>`;
}

const PLACES: Record<string, string> = {
  '': 'The form',
  name: 'Name',
  fields: 'Fields',
  successMessage: 'Success message',
  redirectUrl: 'Redirect URL',
  doubleOptIn: 'Double opt-in',
};

/** Where a refusal's path points, in words: `fields.1.label` → "Field 2, label". */
function where(path: string): string {
  const field = /^fields\.(\d+)(?:\.(.+))?$/.exec(path);
  if (field) return `Field ${Number(field[1]) + 1}${field[2] ? `, ${field[2]}` : ''}`;
  return PLACES[path] ?? path;
}

/** Every refusal in one list at the top, each in words a person reads ("Field 2, label: …"). */
function summary(refusals: Refusals): SafeHtml {
  if (refusals.size === 0) return html``;
  const items = [...refusals.entries()].map(
    ([path, messages]) => html`<li>${where(path)}: ${messages.join(' · ')}</li>`,
  );
  return html`<div class="flash flash-error" role="alert"><p>The form was not saved:</p><ul>${items}</ul></div>`;
}

export function editorForm(
  res: Response,
  input: { action: string; draft: Draft; refusals: Refusals; saveLabel: string },
): SafeHtml {
  const { draft, refusals } = input;
  const name = errorOf(refusals, 'name', 'form-name');
  const fields = errorOf(refusals, 'fields', 'form-fields');
  const success = errorOf(refusals, 'successMessage', 'form-success');
  const redirect = errorOf(refusals, 'redirectUrl', 'form-redirect');
  return html`${summary(refusals)}
<form method="post" action="${input.action}" class="stack form-editor" novalidate>${csrfField(res)}
<button type="submit" name="op" value="save" hidden tabindex="-1">${input.saveLabel}</button>
<input type="hidden" name="fieldCount" value="${draft.fields.length}">
<div><label for="form-name">Name</label><input id="form-name" name="name" value="${draft.name}" required maxlength="200" autocomplete="off"${name.attributes}>${name.message}</div>
<h2 id="form-fields">Fields</h2>
<p class="muted">One field must be a required email field saved as the contact’s email: submissions are kept by email.</p>
${fields.message}
${draft.fields.map((field, i) => fieldRow(field, i, draft.fields.length, refusals))}
<div><button type="submit" class="quiet" name="op" value="add">Add field</button></div>
<h2>After a submission</h2>
<label class="check"><input type="checkbox" name="doubleOptIn" value="yes"${draft.doubleOptIn ? html` checked` : ''}> Double opt-in: subscribe the contact to email only once they follow the link we email them</label>
<div><label for="form-success">Success message <span class="muted">(Liquid: each field by its key, such as <code>{{ email }}</code>; shown after a submission)</span></label>
<textarea id="form-success" name="successMessage" rows="3"${success.attributes}>${draft.successMessage}</textarea>${success.message}</div>
<div><label for="form-redirect">Or redirect to <span class="muted">(an http(s) URL; the hosted page goes there after a submission)</span></label>
<input id="form-redirect" name="redirectUrl" value="${draft.redirectUrl}" type="url" autocomplete="off"${redirect.attributes}>${redirect.message}</div>
<div><button type="submit" name="op" value="save">${input.saveLabel}</button></div>
</form>`;
}
