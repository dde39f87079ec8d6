// A text-only email's HTML part. The text is what was written, so its HTML rendering must show the
// same thing: every character escaped (`3 < 5 & <b>` reads as typed), its line breaks kept (a blank
// line starts a paragraph, a single one is a <br>), runs of spaces kept, and its web addresses made
// links, so click tracking can count them and the open pixel has a document to sit in. The text
// part of the mail stays the text itself.
//
// Links are found by hand rather than with linkify-it: only explicit http(s) URLs are wanted (they
// are the only ones tracking rewrites, and guessing `example.com` or an address into a link would
// change what the sender wrote), which is one pattern and its trailing punctuation.
import { escapeHtml } from '../http/html.ts';

/** Something that only HTML has: an element tag, a comment or a doctype (`3 < 5` and `<a@b.c>` are not). */
const HTML_MARKUP = /<\/?[a-z][a-z0-9-]*(?:[\s/][^<>]*)?>|<!--|<!doctype/i;

/** Whether a template source is HTML (else it is plain text): a campaign step's body may be either. */
export function looksLikeHtml(source: string): boolean {
  return HTML_MARKUP.test(source);
}

const WEB_URL = /\bhttps?:\/\/[^\s<>"]+/gi;
/** Punctuation that ends a sentence rather than a URL: "see https://x.test/a." */
const TRAILING = /[.,;:!?'*]$/;

/** The URL without what follows it in the sentence: trailing punctuation and a closing bracket it did not open. */
function trimUrl(url: string): string {
  let end = url;
  for (;;) {
    if (TRAILING.test(end)) end = end.slice(0, -1);
    else if (end.endsWith(')') && count(end, '(') < count(end, ')')) end = end.slice(0, -1);
    else if (end.endsWith(']') && count(end, '[') < count(end, ']')) end = end.slice(0, -1);
    else return end;
  }
}

const count = (text: string, character: string) => text.split(character).length - 1;

/** Two or more spaces stay as wide as written (HTML would fold them into one). */
const keepSpaces = (html: string) => html.replace(/ {2,}/g, (run) => ` ${'&nbsp;'.repeat(run.length - 1)}`);

/** One line, escaped, with its web addresses as links. */
function lineHtml(line: string): string {
  let html = '';
  let from = 0;
  for (const match of line.matchAll(WEB_URL)) {
    const url = trimUrl(match[0]);
    html += keepSpaces(escapeHtml(line.slice(from, match.index)));
    html += `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`;
    from = match.index + url.length;
  }
  return html + keepSpaces(escapeHtml(line.slice(from)));
}

/** The HTML document that shows a plain text as written. */
export function textToHtml(text: string): string {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n\s*/)
    .map((paragraph) => paragraph.replace(/^\n+|\n+$/g, ''))
    .filter((paragraph) => paragraph.trim().length > 0);
  const body = paragraphs
    .map((paragraph) => `<p>${paragraph.split('\n').map(lineHtml).join('<br>\n')}</p>`)
    .join('\n');
  return (
    '<!DOCTYPE html>\n<html><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head>\n' +
    `<body>\n${body}\n</body></html>\n`
  );
}
