// The template editor's fields, read from the channel's campaign step schema in the registry (no
// channel named here): each field of the step but `type` and `channel` becomes a control by what
// its schema takes (long text: a text area; an http(s) URL: a URL input; a choice: a select; a
// number: a number input). The form's values go back through the same schema, and the Liquid of
// each template field is parsed, so a problem is named with its field, line and column.
import { z } from 'zod';
import { type ChannelDefinition, channelNamed } from '../channels/index.ts';
import { html, type SafeHtml } from '../console/index.ts';
import { validateTemplate } from '../templates/index.ts';
import type { SendStep } from './schemas.ts';

/** Form field names carry this prefix, apart from the page's own (_csrf, contact, to). */
const PREFIX = 'step.';
/** Longer text than this is edited in a text area (an email body, an SMS), shorter in one line. */
const ONE_LINE_MAX = 1000;

export type FieldSpec = {
  name: string;
  label: string;
  required: boolean;
  control: 'textarea' | 'text' | 'url' | 'number' | 'select';
  maxLength?: number;
  options?: readonly string[];
};

/** A problem of one field: the schema's, or its Liquid's at a line and column. */
export type FieldProblem = { field: string; message: string; line?: number; column?: number };

/** camelCase → "Camel case". */
export function fieldLabel(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A string schema that takes a web address but not words: an http(s) URL field. */
const takesOnlyUrls = (schema: z.ZodType) =>
  schema.safeParse('https://example.com/').success && !schema.safeParse('Hello there').success;

function describe(name: string, schema: z.ZodType): FieldSpec {
  const required = !(schema instanceof z.ZodOptional);
  const inner = (schema instanceof z.ZodOptional ? schema.unwrap() : schema) as z.ZodType;
  const base = { name, label: fieldLabel(name), required };
  if (inner instanceof z.ZodEnum) return { ...base, control: 'select', options: inner.options as string[] };
  if (inner instanceof z.ZodNumber) return { ...base, control: 'number' };
  const maxLength = inner instanceof z.ZodString ? (inner.maxLength ?? undefined) : undefined;
  if (takesOnlyUrls(inner)) return { ...base, control: 'url', maxLength };
  return { ...base, control: (maxLength ?? 0) > ONE_LINE_MAX ? 'textarea' : 'text', maxLength };
}

/** The editable fields of the channel's send step, in the schema's order. */
export function fieldsOf(channel: ChannelDefinition): FieldSpec[] {
  return Object.entries(channel.step.shape as Record<string, z.ZodType>)
    .filter(([name]) => name !== 'type' && name !== 'channel')
    .map(([name, schema]) => describe(name, schema));
}

/** The step's values as the form shows them (text). */
export function valuesOfStep(step: SendStep, fields: FieldSpec[]): Record<string, string> {
  const source = step as Record<string, unknown>;
  return Object.fromEntries(
    fields.map((f) => [
      f.name,
      source[f.name] === undefined || source[f.name] === null ? '' : String(source[f.name]),
    ]),
  );
}

/** The form's values of the fields (a missing one is empty); NUL removed as formText does. */
export function valuesOfForm(
  body: Record<string, unknown> | undefined,
  fields: FieldSpec[],
): Record<string, string> {
  return Object.fromEntries(
    fields.map((f) => {
      const value = body?.[`${PREFIX}${f.name}`];
      return [f.name, typeof value === 'string' ? value.replaceAll('\u0000', '') : ''];
    }),
  );
}

/**
 * The values as a step of `channel` through its schema, and every problem: the schema's, then each
 * template field's Liquid that does not parse (where: line and column).
 */
export function readStep(
  channelName: string,
  fields: FieldSpec[],
  values: Record<string, string>,
): { step: SendStep | null; problems: FieldProblem[] } {
  const channel = channelNamed(channelName);
  const candidate: Record<string, unknown> = { type: 'send', channel: channel.name };
  for (const f of fields) {
    const value = values[f.name] ?? '';
    if (value === '' && !f.required) continue;
    candidate[f.name] = f.control === 'number' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  }
  const parsed = channel.step.safeParse(candidate);
  const problems: FieldProblem[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({
        field: String(issue.path[0] ?? 'step'),
        message: issue.message,
      }));
  const liquid = channel.templateFields(candidate as never).flatMap(([field, kind, value]) => {
    const problem = value === undefined || typeof value !== 'string' ? null : validateTemplate(value, kind);
    return problem ? [{ field, ...problem }] : [];
  });
  // The schema's parse check repeats the Liquid problem in words: the positioned one is kept.
  const positioned = new Set(liquid.map((p) => p.field));
  return {
    step: parsed.success && liquid.length === 0 ? (parsed.data as SendStep) : null,
    problems: [...problems.filter((p) => !positioned.has(p.field)), ...liquid],
  };
}

export function problemText(problem: FieldProblem): string {
  const where = problem.line === undefined ? '' : `, line ${problem.line}, column ${problem.column}`;
  return `${fieldLabel(problem.field)}${where}: ${problem.message}`;
}

function control(
  f: FieldSpec,
  value: string,
  readOnly: boolean,
  problem: FieldProblem | undefined,
): SafeHtml {
  const id = `field-${f.name}`;
  const common = html`id="${id}" name="${PREFIX}${f.name}"${f.required ? html` required` : ''}${readOnly ? html` readonly` : ''}${
    problem ? html` aria-invalid="true" aria-describedby="${id}-problem"` : ''
  }`;
  const max = f.maxLength ? html` maxlength="${f.maxLength}"` : '';
  switch (f.control) {
    case 'textarea':
      return html`<textarea ${common}${max} rows="14" spellcheck="false" autocomplete="off" class="template-source">${value}</textarea>`;
    case 'select':
      // A disabled select is not posted: a hidden field carries its value to the preview.
      return html`${readOnly ? html`<input type="hidden" name="${PREFIX}${f.name}" value="${value}">` : ''}<select ${common}${readOnly ? html` disabled` : ''}>${f.required ? '' : html`<option value="">(default)</option>`}${(
        f.options ?? []
      ).map(
        (option) => html`<option${option === value ? html` selected` : ''}>${option}</option>`,
      )}</select>`;
    case 'number':
      return html`<input type="number" ${common} value="${value}" inputmode="numeric">`;
    default:
      return html`<input type="${f.control}" ${common}${max} value="${value}" spellcheck="false" autocomplete="off">`;
  }
}

/** The fields as labelled controls, each with its problem beside it. */
export function fieldControls(
  fields: FieldSpec[],
  values: Record<string, string>,
  problems: FieldProblem[],
  readOnly: boolean,
): SafeHtml[] {
  return fields.map((f) => {
    const problem = problems.find((p) => p.field === f.name);
    const note = problem
      ? html`<p class="field-problem" id="field-${f.name}-problem">${problemText(problem)}</p>`
      : '';
    return html`<div class="template-field"><label for="field-${f.name}">${f.label}${f.required ? '' : html` <span class="muted">(optional)</span>`}</label>
${control(f, values[f.name] ?? '', readOnly, problem)}${note}</div>`;
  });
}
