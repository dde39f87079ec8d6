// CSV for downloads (RFC 4180: CRLF, fields quoted when they hold a comma, a quote or a line break).
// Cells are data a user typed (link URLs, names): one that begins like a formula (= + - @, or a tab
// or carriage return that some spreadsheets skip before one) is prefixed with an apostrophe, so a
// spreadsheet shows it as text instead of running it (OWASP's advice against CSV injection). Numbers
// are written as numbers: a negative one is not text and is not prefixed.
//
//   sendCsv(res, 'report.csv', [['section', 'value'], ['totals', 12]])

import type { Response } from 'express';

export type CsvCell = string | number | null | undefined;

const FORMULA = /^[=+\-@\t\r]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = FORMULA.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(rows: readonly (readonly CsvCell[])[]): string {
  return rows.map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}

/** The rows as a CSV download named `filename` (a name of ours: letters, digits, dots and dashes). */
export function sendCsv(res: Response, filename: string, rows: readonly (readonly CsvCell[])[]) {
  res
    .status(200)
    .type('text/csv; charset=utf-8')
    .setHeader('Content-Disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`)
    .send(toCsv(rows));
}
