// The segment builder's HTML (the form model is builderForm.ts): groups and conditions as nested
// fieldsets, every change a submit button that re-renders the form (so it works with JavaScript
// off), a JSON view for the expert, and the live count and sample, which htmx refreshes as the
// form changes by posting it to …/segments/preview.
import type { Response } from 'express';
import { csrfField, formatNumber, html, type SafeHtml, table, time } from '../console/index.ts';
import { type FormNode, formToRootRule, GROUP_TYPES, type NodeType } from './builderForm.ts';
import type { ContactField, Op } from './conditionSchemas.ts';
import { DATE_OP_WORDS, OP_WORDS } from './describe.ts';

const GROUP_LABELS: Record<(typeof GROUP_TYPES)[number], string> = {
  all: 'All of these',
  any: 'Any of these',
  none: 'None of these',
};

const ADD_LABELS: [NodeType, string][] = [
  ['attribute', 'attribute condition'],
  ['event', 'event condition'],
  ['leadScore', 'score condition'],
  ['field', 'contact field condition'],
  ['all', 'group'],
];

/** The rule's words (describe.ts), with the date reading beside the ordering ones: one list of choices serves numbers and dates. */
function opLabel(op: Op): string {
  const date = DATE_OP_WORDS[op];
  if (date) return `${OP_WORDS[op]} / ${date.replace(/^is /, '')}`;
  return op === 'in' || op === 'not_in' ? `${OP_WORDS[op]} (comma-separated)` : OP_WORDS[op];
}

const FIELD_LABELS: Record<ContactField, string> = {
  email: 'Email',
  firstName: 'First name',
  lastName: 'Last name',
  phone: 'Phone',
  createdAt: 'Created at',
};

function select(name: string, label: string, current: string, options: [string, string][]): SafeHtml {
  return html`<label>${label} <select name="${name}">${options.map(
    ([value, text]) =>
      html`<option value="${value}"${value === current ? html` selected` : ''}>${text}</option>`,
  )}</select></label>`;
}

function input(
  name: string,
  label: string,
  value: string,
  extra: { type?: string; size?: number } = {},
): SafeHtml {
  return html`<label>${label} <input name="${name}" value="${value}" type="${extra.type ?? 'text'}"${
    extra.size ? html` size="${extra.size}"` : ''
  } autocomplete="off"></label>`;
}

const opOptions = (): [string, string][] => (Object.keys(OP_WORDS) as Op[]).map((op) => [op, opLabel(op)]);

function removeButton(path: string, what: string): SafeHtml {
  return html`<button type="submit" name="action" value="remove:${path}" class="quiet" formnovalidate>Remove ${what}</button>`;
}

function conditionFields(node: Exclude<FormNode, { children: FormNode[] }>, path: string): SafeHtml {
  const name = (field: string) => `${path}:${field}`;
  switch (node.type) {
    case 'attribute':
      return html`${input(name('attribute'), 'Attribute', node.attribute, { size: 16 })}
${select(name('op'), 'Operator', node.op, opOptions())}
${input(name('value'), 'Value', node.value, { size: 16 })}
${select(name('valueType'), 'Value type', node.valueType, [
  ['text', 'text or date'],
  ['number', 'number'],
  ['boolean', 'true or false'],
])}`;
    case 'field':
      return html`${select(name('field'), 'Field', node.field, Object.entries(FIELD_LABELS))}
${select(name('op'), 'Operator', node.op, opOptions())}
${input(name('value'), 'Value', node.value, { size: 20 })}`;
    case 'event':
      return html`${input(name('event'), 'Event type', node.event, { size: 16 })}
${input(name('min'), 'At least', node.count.min, { type: 'number', size: 5 })}
${input(name('max'), 'At most', node.count.max, { type: 'number', size: 5 })}
${input(name('within'), 'In the last', node.within, { type: 'number', size: 5 })}
${select(name('unit'), 'Unit', node.unit, [
  ['minutes', 'minutes'],
  ['hours', 'hours'],
  ['days', 'days'],
  ['weeks', 'weeks'],
])}
${input(name('where'), 'Metadata conditions (JSON, optional)', node.where, { size: 24 })}`;
    default:
      return html`${input(name('min'), 'Lead score at least', node.score.min, { type: 'number', size: 6 })}
${input(name('max'), 'Lead score at most', node.score.max, { type: 'number', size: 6 })}`;
  }
}

const CONDITION_TITLES = {
  attribute: 'Attribute',
  field: 'Contact field',
  event: 'Events',
  leadScore: 'Lead score',
} as const;

function renderNode(node: FormNode, path: string, depth: number): SafeHtml {
  const isRoot = path === 'r';
  if ('children' in node) {
    const groupTypes = GROUP_TYPES.map((type): [string, string] => [type, GROUP_LABELS[type]]);
    return html`<fieldset class="rule-group">
<legend>${isRoot ? 'Contacts that match' : 'Group'}</legend>
${select(`${path}:type`, 'Match', node.type, groupTypes)}
${isRoot ? '' : removeButton(path, 'group')}
${node.children.length === 0 ? html`<p class="muted">No conditions yet: add one below.</p>` : ''}
<ol class="rule-children">${node.children.map(
      (child, index) => html`<li>${renderNode(child, `${path}.${index}`, depth + 1)}</li>`,
    )}</ol>
<p class="rule-add">${ADD_LABELS.filter(([type]) => type !== 'all' || depth < 4).map(
      ([type, label]) =>
        html`<button type="submit" name="action" value="add:${path}:${type}" class="quiet" formnovalidate>Add ${label}</button> `,
    )}</p>
</fieldset>`;
  }
  return html`<fieldset class="rule-condition">
<legend>${CONDITION_TITLES[node.type]}</legend>
<input type="hidden" name="${path}:type" value="${node.type}">
${conditionFields(node, path)}
${removeButton(path, 'condition')}
</fieldset>`;
}

/** A contact shown in a preview's sample. */
type SampleContact = { id: string; email: string | null; firstName: string | null; lastName: string | null };

export type PreviewState =
  | {
      kind: 'result';
      count: number;
      exact: boolean;
      sample: SampleContact[];
    }
  | { kind: 'invalid'; messages: string[] }
  | { kind: 'none' }
  | {
      kind: 'stored';
      count: number;
      computing: boolean;
      computedAt: string | null;
      sample: SampleContact[];
    };

/** A few contacts as a table (a preview's matches, a saved segment's members). */
function sampleTable(caption: string, sample: readonly SampleContact[], base: string) {
  return sample.length
    ? table({
        caption,
        columns: [{ label: 'Contact' }, { label: 'Name' }],
        rows: sample.map((c) => [
          html`<a href="${base}/contacts/${encodeURIComponent(c.id)}">${c.email ?? c.id}</a>`,
          [c.firstName, c.lastName].filter(Boolean).join(' '),
        ]),
      })
    : '';
}

/** A saved segment's members as they are kept, before its rules are changed here. */
function storedMembers(state: Extract<PreviewState, { kind: 'stored' }>, base: string): SafeHtml {
  const members = `${formatNumber(state.count)} ${state.count === 1 ? 'contact' : 'contacts'}`;
  const when = state.computing
    ? 'being computed after a change of its rules: the count grows as pages finish'
    : state.computedAt
      ? html`kept current as contacts change; computed ${time(state.computedAt)}`
      : 'not computed yet';
  return html`<p class="live-count"><strong data-testid="live-count">${members}</strong> in the segment now (${when}). Change the rules to see what they would match.</p>${sampleTable('Some members, latest entered first', state.sample, base)}`;
}

/** The live count and sample (swapped by htmx, rendered in the page without JavaScript). */
export function renderPreview(state: PreviewState, base: string): SafeHtml {
  let body: SafeHtml;
  if (state.kind === 'none')
    body = html`<p class="muted">Add a condition to see how many contacts match.</p>`;
  else if (state.kind === 'invalid')
    body = html`<p>Not a complete rule yet:</p><ul>${state.messages.map((m) => html`<li>${m}</li>`)}</ul>`;
  else if (state.kind === 'stored') body = storedMembers(state, base);
  else {
    const count = state.exact ? formatNumber(state.count) : `more than ${formatNumber(state.count)}`;
    body = html`<p class="live-count"><strong data-testid="live-count">${count}</strong> ${
      state.exact && state.count === 1 ? 'contact matches' : 'contacts match'
    } now.</p>${sampleTable('Some matching contacts, newest first', state.sample, base)}`;
  }
  return html`<section id="live-preview" aria-live="polite" aria-label="Matching contacts"><h2>Matching contacts</h2>${body}</section>`;
}

export type BuilderView = {
  res: Response;
  action: string;
  base: string;
  name: string;
  description: string;
  tree: FormNode;
  errors: string[];
  preview: PreviewState;
  /** The JSON view's text: the tree's rule, or what the expert typed when it did not parse. */
  json?: string;
  submitLabel: string;
};

export function renderBuilder(view: BuilderView): SafeHtml {
  const json = view.json ?? JSON.stringify(formToRootRule(view.tree), null, 2);
  return html`<form method="post" action="${view.action}" class="segment-builder"
 hx-post="${view.base}/segments/preview" hx-trigger="input changed delay:500ms, change" hx-target="#live-preview" hx-swap="outerHTML">
${csrfField(view.res)}
${
  view.errors.length
    ? html`<div class="form-errors" role="alert"><p>The segment was not saved:</p><ul>${view.errors.map(
        (e) => html`<li>${e}</li>`,
      )}</ul></div>`
    : ''
}
<p><label>Name <input name="name" value="${view.name}" required maxlength="200"></label></p>
<p><label>Description <input name="description" value="${view.description}" maxlength="2000"></label></p>
${renderNode(view.tree, 'r', 1)}
<p class="form-actions"><button type="submit" name="action" value="save">${view.submitLabel}</button>
<button type="submit" name="action" value="preview" class="quiet" formnovalidate>Count matching contacts</button></p>
<details class="rule-json"><summary>JSON view</summary>
<p><label>The rule as JSON <textarea name="json" rows="12" cols="60" spellcheck="false">${json}</textarea></label></p>
<p><button type="submit" name="action" value="json" class="quiet" formnovalidate>Use this JSON</button></p>
</details>
</form>
${renderPreview(view.preview, view.base)}`;
}
