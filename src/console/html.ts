// The console's templates: the `html` tagged template, which escapes every interpolated value unless
// it is already SafeHtml (the result of another `html` call, or of `raw()` for constants).
//
//   html`<p>${user.name}</p>`                 → the name escaped
//   html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`   → arrays of SafeHtml are joined
//   html`${condition && html`<b>x</b>`}`      → false, null and undefined render nothing
//   html`<a href="${safeUrl(contact.website)}">` → only http(s), mailto and same-site URLs pass
//   raw(CONSTANT_SVG)                         → trusted text, for constants of ours only
//
// Typed, so `tsc` checks pages like the rest of the code (docs/decisions/0012-console-without-a-build.md).

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text that is HTML already: rendered as is. Made only by `html` and `raw`. */
export class SafeHtml {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/** What may be interpolated: text and numbers (escaped), SafeHtml (as is), lists, or nothing. */
export type Interpolation =
  | SafeHtml
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | readonly Interpolation[];

export function escapeText(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.toString();
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeText(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** Trusted markup, as is: for constants written in our code, never for anything a user typed. */
export function raw(constant: string): SafeHtml {
  return new SafeHtml(constant);
}

/** Several fragments as one, separated by nothing. */
export function join(parts: readonly Interpolation[], separator: Interpolation = ''): SafeHtml {
  return new SafeHtml(parts.map(render).join(render(separator)));
}

const SAFE_URL = /^(https?:\/\/|mailto:|\/(?![/\\])|#|\?)/i;

/**
 * A URL from data (a contact's attribute, a webhook's endpoint) fit for an href: http(s), mailto,
 * same-site paths, fragments and queries pass; `javascript:`, `data:` and the rest become '#'.
 * Escaping alone would leave `javascript:alert(1)` clickable.
 */
export function safeUrl(value: string): string {
  const trimmed = value.trim();
  const control = [...trimmed].some((char) => char.charCodeAt(0) < 0x20);
  return SAFE_URL.test(trimmed) && !control ? trimmed : '#';
}
