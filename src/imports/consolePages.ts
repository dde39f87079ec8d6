// The imports section of the console (/app/{ws}/imports): upload a CSV or NDJSON file of contacts or
// events (a plain multipart form, streamed into the database), see its columns mapped to fields
// with the first rows as they will be imported, change the mapping, start it, watch it run in the
// worker (a refresh link; htmx polls the progress), read its outcome and the refused rows by line,
// and download them as a rejects file. ADMINs only, as bulk imports are the CLI's (the operator's).
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import {
  type BadgeKind,
  badge,
  type ConsolePages,
  consoleForm,
  consoleState,
  csrfField,
  emptyState,
  formatNumber,
  formText,
  html,
  keyValueList,
  pageOf,
  pager,
  pageWorkspace,
  postForm,
  readCursor,
  redirectWithFlash,
  requireAdmin,
  type SafeHtml,
  sendErrorPage,
  sendPage,
  table,
  time,
  withQuery,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors.ts';
import { jsonLimitsOf } from '../http/jsonLimits.ts';
import { transactionalDb } from '../jobs/boss.ts';
import { IMPORT_QUEUE } from './consoleJob.ts';
import { type CsvMapping, fieldsOf, type ImportTarget, validTarget } from './mapping.ts';
import { HEAD_BYTES, type PreviewRow, previewRows, wholeHead } from './preview.ts';
import { rejectsHeader, rejectsLine } from './rejectsFile.ts';
import { receiveUpload, sizeText } from './upload.ts';
import {
  deleteImport,
  fileHead,
  findImport,
  type ImportRow,
  listImports,
  rejectsAfter,
  saveMapping,
} from './uploadQueries.ts';

const LIST_LIMIT = 50;
/** Refused rows listed on the page (the download has them all). */
const SHOWN_REJECTS = 100;
const SHOWN_RAW_CHARS = 300;

const STATUS_KINDS: Record<ImportRow['status'], BadgeKind> = {
  uploading: 'neutral',
  uploaded: 'info',
  queued: 'info',
  running: 'warning',
  finished: 'success',
  failed: 'danger',
};
const STATUS_WORDS: Record<ImportRow['status'], string> = {
  uploading: 'uploading',
  uploaded: 'waiting for its start',
  queued: 'queued',
  running: 'running',
  finished: 'finished',
  failed: 'failed',
};

const ended = (row: ImportRow) => row.status === 'finished' || row.status === 'failed';
const importPath = (res: Response, id: string) => `${workspacePath(res)}/imports/${encodeURIComponent(id)}`;

async function requireImport(app: AppContext, res: Response, id: string): Promise<ImportRow> {
  const row = await findImport(app.db, pageWorkspace(res).id, id);
  if (!row || row.status === 'uploading') throw new NotFoundError('Import');
  return row;
}

function uploadForm(app: AppContext, res: Response): SafeHtml {
  const limit = sizeText(app.config.IMPORT_UPLOAD_MAX_BYTES);
  return html`<form method="post" action="${workspacePath(res)}/imports" enctype="multipart/form-data" class="stack">
${csrfField(res)}
<fieldset><legend>The file holds</legend>
<label class="check"><input type="radio" name="kind" value="contacts" checked> Contacts (upserted by email)</label>
<label class="check"><input type="radio" name="kind" value="events"> Events (their contacts found or created)</label>
</fieldset>
<label for="import-file">File: CSV with a header row, or NDJSON (one JSON object a line); at most ${limit}</label>
<input id="import-file" type="file" name="file" required accept=".csv,.ndjson,.jsonl,.json,text/csv,application/x-ndjson">
<p class="muted">Nothing is imported yet: the next page shows the columns and the first rows as they will be imported. Larger files go through <code>switchboard import</code>.</p>
<p><button type="submit">Upload</button></p></form>`;
}

function importsTable(res: Response, rows: ImportRow[]): SafeHtml {
  return table({
    caption: 'Imports',
    columns: [
      { label: 'File' },
      { label: 'Holds' },
      { label: 'Status' },
      { label: 'Rows read', numeric: true },
      { label: 'Imported', numeric: true },
      { label: 'Refused', numeric: true },
      { label: 'Uploaded' },
    ],
    rows: rows.map((row) => [
      html`<a href="${importPath(res, row.id)}">${row.file_name}</a>`,
      row.kind,
      badge(STATUS_WORDS[row.status], STATUS_KINDS[row.status]),
      formatNumber(row.rows_read),
      ended(row) ? formatNumber(row.imported) : '',
      ended(row) ? formatNumber(row.refused) : '',
      html`${time(row.created_at)}${row.created_by_email ? html`<br><span class="muted">${row.created_by_email}</span>` : ''}`,
    ]),
  });
}

async function listPage(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  // Newest first: the cursor is the last id shown, the next page the ids below it.
  const after = readCursor(req.query.after, z.tuple([z.string()]));
  const rows = await listImports(app.db, pageWorkspace(res).id, after?.[0] ?? null, LIST_LIMIT + 1);
  const { shown, next } = pageOf(rows, LIST_LIMIT, (row) => [row.id]);
  const list = shown.length
    ? html`${importsTable(res, shown)}${pager({
        first: after ? withQuery(req.originalUrl, {}) : null,
        next: next && withQuery(req.originalUrl, { after: next }),
      })}`
    : emptyState('No imports yet', 'Upload a file above: its rows are checked and imported by the worker.');
  sendPage(res, {
    title: 'Imports',
    section: 'imports',
    body: html`<section aria-labelledby="upload-title"><h2 id="upload-title">Upload a file</h2>${uploadForm(app, res)}</section>
<section aria-labelledby="past-title"><h2 id="past-title">Past imports</h2>${list}</section>`,
  });
}

async function uploadPost(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const outcome = await receiveUpload(app, req, {
    workspaceId: pageWorkspace(res).id,
    userId: consoleState(res).user.id,
  });
  if (outcome.ok)
    return redirectWithFlash(
      req,
      res,
      importPath(res, outcome.importId),
      'File uploaded: check the mapping, then start the import.',
    );
  if (outcome.status === 403)
    return sendErrorPage(
      res,
      403,
      'Form expired',
      'This form could not be checked (it expired, or was sent from another site). Go back, reload the page and try again.',
    );
  await redirectWithFlash(req, res, `${workspacePath(res)}/imports`, outcome.message, 'error');
}

function describe(row: ImportRow): SafeHtml {
  return keyValueList([
    [
      'File',
      html`${row.file_name} <span class="muted">(${row.format === 'csv' ? 'CSV' : 'NDJSON'}, ${sizeText(row.file_bytes)})</span>`,
    ],
    ['Holds', row.kind],
    ['Status', badge(STATUS_WORDS[row.status], STATUS_KINDS[row.status])],
    [
      'Uploaded',
      html`${time(row.created_at)}${row.created_by_email ? html` by ${row.created_by_email}` : ''}`,
    ],
    [
      'Campaign triggers',
      row.trigger_campaigns ? 'enroll contacts as the API would' : 'do not fire (history messages nobody)',
    ],
  ]);
}

const TARGET_WORDS: Record<'attribute' | 'metadata' | 'ignore', string> = {
  attribute: 'an attribute of that name',
  metadata: 'a metadata key of that name',
  ignore: 'ignored',
};

function targetOptions(row: ImportRow, current: string): SafeHtml[] {
  const data = row.kind === 'contacts' ? 'attribute' : 'metadata';
  const choices: [string, string][] = [
    ...fieldsOf(row.kind).map((field): [string, string] => [
      `field:${field}`,
      `${row.kind === 'contacts' ? 'contact' : 'event'} field ${field}`,
    ]),
    [data, TARGET_WORDS[data]],
    ['ignore', TARGET_WORDS.ignore],
  ];
  return choices.map(
    ([value, label]) =>
      html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`,
  );
}

function mappingTable(row: ImportRow): SafeHtml {
  if (row.columns.length === 0)
    return html`<p class="flash flash-error" role="alert">The header row could not be read: the first line must name the columns.</p>`;
  return table({
    caption: 'Where each column goes',
    columns: [{ label: 'Column of the file' }, { label: 'Goes to' }],
    rows: row.columns.map((column, i) => [
      html`<label for="target-${i}">${column === '' ? html`<span class="muted">(no name)</span>` : column}</label>`,
      html`<select id="target-${i}" name="target.${i}">${targetOptions(row, row.targets[i] ?? 'ignore')}</select>`,
    ]),
  });
}

/** NDJSON rows are in the API's shape: each key is a field of the record, or the row is refused. */
function keysTable(row: ImportRow): SafeHtml {
  const fields = new Set<string>([
    ...fieldsOf(row.kind),
    row.kind === 'contacts' ? 'attributes' : 'metadata',
  ]);
  return table({
    caption: 'Keys of the first rows',
    columns: [{ label: 'Key' }, { label: 'Read as' }],
    rows: row.columns.map((key) => [
      key,
      fields.has(key) ? `the ${key} field` : html`${badge('not a field', 'danger')} rows with it are refused`,
    ]),
  });
}

function previewTable(rows: PreviewRow[]): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">No row could be read from the start of the file.</p>`;
  return table({
    caption: 'The first rows as they will be imported',
    columns: [{ label: 'Line', numeric: true }, { label: 'Record' }, { label: 'Check' }],
    rows: rows.map((row) => [
      row.line,
      row.record
        ? html`<pre class="break"><code>${JSON.stringify(row.record, null, 1)}</code></pre>`
        : html`<span class="muted">—</span>`,
      row.refused
        ? html`${badge('refused', 'danger')} <span class="break">${row.refused}</span>`
        : badge('valid', 'success'),
    ]),
  });
}

const mappingOf = (row: ImportRow): CsvMapping =>
  row.columns.map((column, i) => ({ column, target: (row.targets[i] ?? 'ignore') as ImportTarget }));

async function headOf(app: AppContext, workspaceId: string, row: ImportRow): Promise<Buffer> {
  return wholeHead(await fileHead(app.db, workspaceId, row.id, HEAD_BYTES), row.file_bytes);
}

async function mappingSection(app: AppContext, res: Response, row: ImportRow): Promise<SafeHtml> {
  const head = await headOf(app, pageWorkspace(res).id, row);
  const preview = await previewRows(row.kind, row.format, head, mappingOf(row), jsonLimitsOf(app.config));
  const path = importPath(res, row.id);
  const noEmail =
    row.kind === 'contacts' &&
    row.format === 'csv' &&
    row.columns.length > 0 &&
    !row.targets.includes('field:email')
      ? html`<p class="flash flash-error" role="alert">No column goes to the email field: every row will be refused.</p>`
      : '';
  return html`<form method="post" action="${path}" class="stack">${csrfField(res)}
<h2>${row.format === 'csv' ? 'Columns' : 'Keys'}</h2>
${row.format === 'csv' ? html`<p>Each column goes to a field, to ${row.kind === 'contacts' ? 'an attribute' : 'a metadata key'} named as the column, or nowhere. Empty cells are left out.</p>${mappingTable(row)}${noEmail}` : html`<p>An NDJSON file is read as the API reads a request: each line one record in the shape of the API's ${row.kind === 'contacts' ? 'contact' : 'event'}.</p>${keysTable(row)}`}
<label class="check"><input type="checkbox" name="triggerCampaigns" value="yes"${row.trigger_campaigns ? html` checked` : ''}> Let campaign triggers enroll the contacts (off: imported history messages nobody)</label>
<p>${row.format === 'csv' ? html`<button type="submit" name="action" value="preview" class="quiet">Update the preview</button> ` : ''}<button type="submit" name="action" value="start">Start the import</button></p>
</form>
<h2>Preview</h2>
${previewTable(preview)}
<p class="muted">Rows that are refused are skipped and listed, by line, once the import ends; the others are imported.</p>
${postForm(res, { action: `${path}/discard`, label: 'Discard this upload', danger: true, back: path })}`;
}

function progressSection(res: Response, row: ImportRow): SafeHtml {
  const path = importPath(res, row.id);
  const share = row.file_bytes > 0 ? Math.min(100, Math.round((row.bytes_read / row.file_bytes) * 100)) : 0;
  return html`<section id="import-progress" aria-labelledby="progress-title" hx-get="${path}/progress" hx-trigger="every 1s" hx-swap="outerHTML">
<h2 id="progress-title">Progress</h2>
<p>${badge(STATUS_WORDS[row.status], STATUS_KINDS[row.status])} ${row.status === 'running' && row.phase ? row.phase : row.status === 'queued' ? 'waiting for the worker' : ''}</p>
<p><label for="import-share">File read</label> <progress id="import-share" max="100" value="${share}">${share}%</progress> ${share}%</p>
${keyValueList([
  ['Rows read', formatNumber(row.rows_read)],
  ['Refused so far', formatNumber(row.refused)],
  ['Imported', 'counted when it ends: it commits all at once'],
])}
<p><a href="${path}">Refresh</a></p>
</section>`;
}

const SUMMARY_WORDS: [string, string][] = [
  ['created', 'Contacts created'],
  ['updated', 'Contacts updated'],
  ['unchanged', 'Contacts unchanged'],
  ['imported', 'Events imported'],
  ['alreadyImported', 'Events imported before (same id)'],
  ['duplicates', 'Repeated in the file (the last one counts)'],
  ['contactsCreated', 'Contacts created'],
  ['scoreChanges', 'Score changes'],
  ['entered', 'Segment entries'],
  ['exited', 'Segment exits'],
  ['enrollments', 'Campaign enrollments'],
  ['seconds', 'Seconds'],
];

async function outcomeSection(app: AppContext, res: Response, row: ImportRow): Promise<SafeHtml> {
  if (row.status === 'failed')
    return html`<h2>Outcome</h2><p class="flash flash-error" role="alert">${row.error ?? 'The import failed.'}</p>`;
  const summary = row.summary ?? {};
  const details = SUMMARY_WORDS.filter(([key]) => typeof summary[key] === 'number').map(
    ([key, label]): [string, string] => [label, formatNumber(summary[key] as number)],
  );
  const rejects = row.refused
    ? await rejectsAfter(app.db, pageWorkspace(res).id, row.id, 0, SHOWN_REJECTS)
    : [];
  const path = importPath(res, row.id);
  const refused = row.refused
    ? html`<h2>Refused rows</h2>
<p><a class="button" href="${path}/rejects" download>Download the refused rows</a> <span class="muted">${row.format === 'csv' ? 'CSV: the file’s header and its refused rows as uploaded, with their line and reason added as the last two columns' : 'NDJSON: {line, reason, row} a line, row being the line as uploaded'}</span></p>
${table({
  caption: 'Refused rows',
  columns: [{ label: 'Line', numeric: true }, { label: 'Reason' }, { label: 'Row as uploaded' }],
  rows: rejects.map((r) => [
    r.line,
    html`<span class="break">${r.reason}</span>`,
    r.raw === null
      ? html`<span class="muted">not kept (over 1 MiB)</span>`
      : html`<code class="break">${r.raw.length > SHOWN_RAW_CHARS ? `${r.raw.slice(0, SHOWN_RAW_CHARS)}…` : r.raw}</code>`,
  ]),
})}
${row.refused > rejects.length ? html`<p class="muted">The first ${SHOWN_REJECTS} of ${formatNumber(row.refused)} refused rows are shown; the download has them all.</p>` : ''}`
    : html`<p>No row was refused.</p>`;
  return html`<h2>Outcome</h2>
${keyValueList([
  ['Rows read', formatNumber(row.rows_read)],
  ['Imported', formatNumber(row.imported)],
  ['Refused', formatNumber(row.refused)],
  ['Started', row.started_at ? time(row.started_at) : ''],
  ['Ended', row.finished_at ? time(row.finished_at) : ''],
  ...details,
])}
${refused}`;
}

async function importPage(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const row = await requireImport(app, res, String(req.params.importId));
  const section =
    row.status === 'uploaded'
      ? await mappingSection(app, res, row)
      : ended(row)
        ? await outcomeSection(app, res, row)
        : progressSection(res, row);
  sendPage(res, {
    title: row.file_name,
    section: 'imports',
    crumbs: [{ label: 'Imports', href: `${workspacePath(res)}/imports` }],
    body: html`${describe(row)}${section}`,
  });
}

/** The progress section alone, for htmx; once the import has ended, the whole page is reloaded. */
async function progressFragment(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const row = await requireImport(app, res, String(req.params.importId));
  if (row.status === 'queued' || row.status === 'running') {
    res.type('html').send(progressSection(res, row).toString());
    return;
  }
  res.setHeader('HX-Refresh', 'true');
  res.status(204).end();
}

function chosenTargets(req: Request, row: ImportRow): ImportTarget[] {
  if (row.format !== 'csv') return [];
  return row.columns.map((column, i) => {
    const target = formText(req, `target.${i}`);
    if (!validTarget(row.kind, target))
      throw new ValidationError([
        { path: 'body.mapping', message: `the column “${column}” cannot go to “${target}”` },
      ]);
    return target;
  });
}

async function mappingPost(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const workspaceId = pageWorkspace(res).id;
  const row = await requireImport(app, res, String(req.params.importId));
  const start = formText(req, 'action') === 'start';
  const targets = chosenTargets(req, row);
  const input = { targets, triggerCampaigns: formText(req, 'triggerCampaigns') === 'yes', start };
  const saved = await app.db.transaction(async (tx) => {
    if (!(await saveMapping(tx, workspaceId, row.id, input))) return false;
    if (start)
      await app.boss.send(IMPORT_QUEUE, { workspaceId, importId: row.id }, { db: transactionalDb(tx) });
    return true;
  });
  if (!saved) throw new ConflictError('This import has already started: its mapping can no longer change.');
  await redirectWithFlash(req, res, importPath(res, row.id), start ? 'Import started.' : 'Preview updated.');
}

async function discardPost(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const row = await requireImport(app, res, String(req.params.importId));
  if (row.status !== 'uploaded')
    throw new ConflictError('This import has started: it can no longer be discarded.');
  await deleteImport(app.db, pageWorkspace(res).id, row.id);
  await redirectWithFlash(req, res, `${workspacePath(res)}/imports`, 'Upload discarded.');
}

/** A file name fit for Content-Disposition: the upload's name without what a header cannot carry. */
const downloadName = (row: ImportRow) =>
  `${row.file_name.replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9._-]+/g, '_') || 'import'}-rejects.${row.format === 'csv' ? 'csv' : 'ndjson'}`;

async function rejectsDownload(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const workspaceId = pageWorkspace(res).id;
  const row = await requireImport(app, res, String(req.params.importId));
  if (!ended(row)) throw new ConflictError('The refused rows are known once the import ends.');
  res.type(row.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${downloadName(row)}"`);
  res.write(rejectsHeader(row.format, row.columns));
  for (let after = 0; ; ) {
    const page = await rejectsAfter(app.db, workspaceId, row.id, after, 1000);
    if (page.length === 0) break;
    const ok = res.write(page.map((reject) => rejectsLine(row.format, reject)).join(''));
    if (!ok) await new Promise((resolve) => res.once('drain', resolve));
    after = page.at(-1)!.line;
  }
  res.end();
}

function install(app: AppContext, router: Router) {
  const form = consoleForm();
  router.get('/imports', (req, res) => listPage(app, req, res));
  router.post('/imports', (req, res) => uploadPost(app, req, res));
  router.get('/imports/:importId', (req, res) => importPage(app, req, res));
  router.post('/imports/:importId', form, (req, res) => mappingPost(app, req, res));
  router.post('/imports/:importId/discard', form, (req, res) => discardPost(app, req, res));
  router.get('/imports/:importId/progress', (req, res) => progressFragment(app, req, res));
  router.get('/imports/:importId/rejects', (req, res) => rejectsDownload(app, req, res));
}

export function importConsole(app: AppContext): ConsolePages {
  return {
    sections: [{ path: 'imports', label: 'Imports', key: 'i', order: 15, adminOnly: true }],
    install: (router) => install(app, router),
  };
}
