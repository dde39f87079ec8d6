// The console's building blocks; each returns SafeHtml and escapes what it is given.
//
//   table({ caption, columns: [{ label: 'Email' }, { label: 'Score', numeric: true }], rows: [[html`<a …>`, 12]] })
//   emptyState('No contacts yet', html`Send one with <code>POST …/contacts</code> or import a CSV.`)
//   pager({ previous: null, next: '/app/…?after=…' })
//   postForm(res, { action, fields: { role: 'ADMIN' }, label: 'Make admin' })       // one-button POST
//   confirmForm(res, { action, label: 'Delete contact', confirm: { name: 'email', expected: c.email } })
//   copyButton('sk_live_…')  ·  badge('active', 'success')  ·  sparkline([3, 5, 2], { label: 'Score, 30 days' })
//   keyValueList([['Email', c.email], ['Phone', c.phone]])  ·  tabs([{ label, href, current }])
//   groupTabs(res, 'Settings', 'settings/keys')   (the tabs of a group of sections, state.ts)
//   csrfField(res)  (inside hand-written forms)
import type { Response } from 'express';
import { html, type Interpolation, type SafeHtml } from './html.ts';
import { consoleState } from './state.ts';

export function csrfField(res: Response): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${consoleState(res).csrf}">`;
}

export type Column = {
  label: string;
  numeric?: boolean /** visually hidden header text */;
  hidden?: boolean;
};

/** A table in a horizontally scrolling box (narrow screens scroll the table, never the page). */
export function table(input: { caption: string; columns: Column[]; rows: Interpolation[][] }): SafeHtml {
  const head = input.columns.map(
    (c) =>
      html`<th scope="col"${c.numeric ? html` class="num"` : ''}>${c.hidden ? html`<span class="visually-hidden">${c.label}</span>` : c.label}</th>`,
  );
  const body = input.rows.map(
    (row) =>
      html`<tr>${row.map((cell, i) => html`<td${input.columns[i]?.numeric ? html` class="num"` : ''}>${cell}</td>`)}</tr>`,
  );
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${input.caption}"><table>
<caption class="visually-hidden">${input.caption}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** What an empty list says: what it is, and what to do next. */
export function emptyState(title: string, nextStep: Interpolation): SafeHtml {
  return html`<div class="empty"><p class="empty-title">${title}</p><p>${nextStep}</p></div>`;
}

export function pager(links: {
  previous?: string | null;
  next?: string | null;
  first?: string | null;
}): SafeHtml {
  if (!links.previous && !links.next && !links.first) return html``;
  return html`<nav class="pager" aria-label="Pages">
${links.first ? html`<a href="${links.first}" rel="first">First page</a>` : ''}
${links.previous ? html`<a href="${links.previous}" rel="prev">Previous</a>` : ''}
${links.next ? html`<a href="${links.next}" rel="next">Next page</a>` : ''}</nav>`;
}

type FormButton = {
  action: string;
  label: string;
  fields?: Record<string, string>;
  /** danger: a destructive action's red button. */
  danger?: boolean;
  /** Where to come back to with the error flash when the action is refused (forms.ts). */
  back?: string;
};

function hiddenFields(fields: Record<string, string> = {}): SafeHtml[] {
  return Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
}

/** A form that is one button: a POST with the CSRF token and these hidden fields. */
export function postForm(res: Response, form: FormButton): SafeHtml {
  return html`<form method="post" action="${form.action}" class="inline">${csrfField(res)}${hiddenFields(form.fields)}
${form.back ? html`<input type="hidden" name="_back" value="${form.back}">` : ''}
<button type="submit"${form.danger ? html` class="danger"` : ''}>${form.label}</button></form>`;
}

/**
 * A destructive action that asks for a value to be typed (an email, a workspace's name) before it
 * goes: the `pattern` makes the browser refuse anything else, and the handler checks it again.
 */
export function confirmForm(
  res: Response,
  form: FormButton & { confirm: { name: string; expected: string; prompt: string } },
): SafeHtml {
  const id = `confirm-${form.confirm.name}`;
  return html`<form method="post" action="${form.action}" class="confirm">${csrfField(res)}${hiddenFields(form.fields)}
${form.back ? html`<input type="hidden" name="_back" value="${form.back}">` : ''}
<label for="${id}">${form.confirm.prompt}</label>
<input id="${id}" name="${form.confirm.name}" required autocomplete="off" spellcheck="false" pattern="${escapePattern(form.confirm.expected)}">
<button type="submit" class="danger">${form.label}</button></form>`;
}

/** The expected text as a `pattern` that matches only itself. */
function escapePattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** A button console.js turns into "copy to clipboard"; without JavaScript the value stays selectable. */
export function copyButton(value: string, label = 'Copy'): SafeHtml {
  return html`<span class="copy"><code class="copy-value">${value}</code> <button type="button" class="quiet copy-button" data-copy="${value}" hidden>${label}</button></span>`;
}

export type BadgeKind = 'neutral' | 'success' | 'warning' | 'danger' | 'info';

export function badge(text: string, kind: BadgeKind = 'neutral'): SafeHtml {
  return html`<span class="badge badge-${kind}">${text}</span>`;
}

/** Pairs as a description list; an empty value shows a dash. */
export function keyValueList(pairs: [string, Interpolation][]): SafeHtml {
  const rows = pairs.map(
    ([key, value]) =>
      html`<dt>${key}</dt><dd>${value === null || value === undefined || value === '' ? html`<span class="muted">—</span>` : value}</dd>`,
  );
  return html`<dl class="kv">${rows}</dl>`;
}

/** The tabs of the sections of a group (`Settings`), the page's own marked current. */
export function groupTabs(res: Response, group: string, current: string): SafeHtml {
  const state = consoleState(res);
  const base = `/app/${encodeURIComponent(state.workspace?.id ?? '')}`;
  const items = state.sections
    .filter((s) => s.group === group && (!s.adminOnly || state.role === 'ADMIN'))
    .map((s) => ({ label: s.label, href: `${base}/${s.path}`, current: s.path === current }));
  return tabs(items, group);
}

export function tabs(items: { label: string; href: string; current?: boolean }[], label = 'Views'): SafeHtml {
  return html`<nav class="tabs" aria-label="${label}"><ul>${items.map(
    (t) => html`<li><a href="${t.href}"${t.current ? html` aria-current="page"` : ''}>${t.label}</a></li>`,
  )}</ul></nav>`;
}

/**
 * A line chart of `values` (oldest first) as inline SVG, drawn on the server: it needs no script,
 * works with JavaScript off and can be read in tests. `label` names it for screen readers.
 */
export function sparkline(
  values: readonly number[],
  options: { label: string; width?: number; height?: number },
): SafeHtml {
  const width = options.width ?? 160;
  const height = options.height ?? 32;
  if (values.length === 0) return html`<span class="muted">No data</span>`;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min || 1;
  const step = values.length > 1 ? (width - 2) / (values.length - 1) : 0;
  const points = values.map((v, i) => {
    const x = 1 + i * step;
    const y = height - 1 - ((v - min) / span) * (height - 2);
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  });
  const last = points[points.length - 1].split(',');
  return html`<svg class="sparkline" role="img" aria-label="${options.label}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<title>${options.label}</title><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${points.join(' ')}"/>
<circle cx="${last[0]}" cy="${last[1]}" r="2" fill="currentColor"/></svg>`;
}

/** A number for people: 1234567 → "1,234,567". */
export function formatNumber(value: number): string {
  return value.toLocaleString('en-US');
}

/** A time for people, in UTC, with the exact instant as the element's datetime. */
export function time(iso: string): SafeHtml {
  const shown = iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
  return html`<time datetime="${iso}">${shown}</time>`;
}
