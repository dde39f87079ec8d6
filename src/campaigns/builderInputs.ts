// The campaign builder's inputs: a label, the input named by its place in the definition (its id
// the same, so a refusal's summary links to it), and the refusals shown right under it.
import { html, type SafeHtml } from '../console/index.ts';

/** The refusals to show, by the field (or step) they are about, and the field to focus after a change. */
export type Place = { errors: Map<string, string[]>; focus: string | null };

export function errorsAt(place: Place, name: string): SafeHtml {
  const messages = place.errors.get(name);
  if (!messages?.length) return html``;
  return html`<ul class="field-errors" id="${name}-errors">${messages.map((m) => html`<li>${m}</li>`)}</ul>`;
}

/** The attributes of an input that has refusals, or that should take the focus. */
function state(place: Place, name: string): SafeHtml {
  const invalid = place.errors.get(name)?.length
    ? html` aria-invalid="true" aria-describedby="${name}-errors"`
    : html``;
  return html`${invalid}${place.focus === name ? html` autofocus` : ''}`;
}

export type TextInput = {
  name: string;
  label: string;
  value: string;
  type?: 'text' | 'number' | 'time' | 'datetime-local';
  hint?: string;
  /** A textarea of this many rows instead of an input. */
  rows?: number;
  size?: number;
};

export function textInput(place: Place, input: TextInput): SafeHtml {
  const { name, label, value } = input;
  const hint = input.hint ? html` <span class="muted">${input.hint}</span>` : '';
  const control = input.rows
    ? html`<textarea id="${name}" name="${name}" rows="${input.rows}" spellcheck="false"${state(place, name)}>${value}</textarea>`
    : html`<input id="${name}" name="${name}" value="${value}" type="${input.type ?? 'text'}"${
        input.size ? html` size="${input.size}"` : ''
      }${input.type === 'datetime-local' ? html` step="1"` : ''} autocomplete="off"${state(place, name)}>`;
  return html`<div class="builder-field"><label for="${name}">${label}</label>${hint} ${control}${errorsAt(place, name)}</div>`;
}

export function selectInput(
  place: Place,
  input: { name: string; label: string; value: string; options: readonly (readonly [string, string])[] },
): SafeHtml {
  const { name, label, value, options } = input;
  return html`<div class="builder-field"><label for="${name}">${label}</label> <select id="${name}" name="${name}"${state(place, name)}>${options.map(
    ([option, text]) =>
      html`<option value="${option}"${option === value ? html` selected` : ''}>${text}</option>`,
  )}</select>${errorsAt(place, name)}</div>`;
}

/** Radio buttons in a fieldset of their own; each radio's id is `<name>-<value>`. */
export function radioGroup(input: {
  name: string;
  legend: string;
  value: string;
  options: readonly (readonly [string, string])[];
}): SafeHtml {
  const { name, legend, value, options } = input;
  return html`<fieldset class="builder-choice"><legend>${legend}</legend>${options.map(
    ([option, text]) =>
      html`<label class="check" for="${name}-${option}"><input type="radio" id="${name}-${option}" name="${name}" value="${option}"${
        option === value ? html` checked` : ''
      }> ${text}</label>`,
  )}</fieldset>`;
}

export function checkbox(input: { name: string; label: string; checked: boolean }): SafeHtml {
  return html`<label class="check" for="${input.name}"><input type="checkbox" id="${input.name}" name="${input.name}"${
    input.checked ? html` checked` : ''
  }> ${input.label}</label>`;
}

/** A submit button of the form that changes the draft (nothing is saved). */
export function actionButton(action: string, label: string, extra = ''): SafeHtml {
  return html`<button type="submit" name="action" value="${action}" class="quiet${extra ? ` ${extra}` : ''}" formnovalidate>${label}</button>`;
}
