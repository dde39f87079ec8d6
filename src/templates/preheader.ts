// The preheader: the line mail clients show after the subject in the inbox list. No header carries
// it; clients take the first text of the HTML body, so it goes there as the body's first element,
// hidden when the mail is opened (display:none for most clients, mso-hide:all for Outlook's Word
// engine, zero size, opacity and overflow for those that ignore display:none). After it comes
// padding of invisible characters (zero-width non-joiners and non-breaking spaces, with the
// combining grapheme joiner for clients that drop a lone ZWNJ), so the preview stops at the
// preheader instead of running on into the body's first words.
import { Parser } from 'htmlparser2';
import { escapeHtml } from '../http/html.ts';

/** About the longest preview a client shows (desktop Outlook and Apple Mail ~140, Gmail less). */
const PREVIEW_CHARACTERS = 150;
const INVISIBLE = '&#847;&zwnj;&nbsp;';

const HIDDEN =
  'display:none;font-size:1px;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;mso-hide:all';

/** The hidden element that carries the preheader (plain text, escaped here). */
export function preheaderHtml(preheader: string): string {
  const padding = INVISIBLE.repeat(Math.max(0, PREVIEW_CHARACTERS - [...preheader].length));
  return `<div style="${HIDDEN}" aria-hidden="true">${escapeHtml(preheader)}${padding}</div>`;
}

/** Elements that are not content when they come before it (a fragment may have no <head>). */
const HEAD_ELEMENTS = new Set(['html', 'head', 'meta', 'title', 'style', 'link', 'base', 'script']);

/**
 * Where the body's content starts: just after `<body …>`; without one, before the first element
 * or text that is not part of the head (after a doctype, `<html>` and a head).
 */
function contentStart(html: string): number {
  let start = 0;
  let inHead = 0; // inside <title>, <style>, <script>: their text is not content
  const parser = new Parser(
    {
      onprocessinginstruction() {
        start = parser.endIndex + 1;
      },
      onopentag(name, _attributes, implied) {
        if (implied) return;
        if (name === 'body') return found(parser.endIndex + 1);
        if (!HEAD_ELEMENTS.has(name)) return found(parser.startIndex);
        if (name === 'html' || name === 'head' || name === 'meta' || name === 'link' || name === 'base')
          start = parser.endIndex + 1;
        else inHead++;
      },
      onclosetag(name, implied) {
        if (implied || !HEAD_ELEMENTS.has(name)) return;
        if (name === 'title' || name === 'style' || name === 'script') inHead--;
        start = parser.endIndex + 1;
      },
      ontext(text) {
        if (inHead === 0 && text.trim() !== '') found(parser.startIndex);
      },
    },
    { lowerCaseTags: true },
  );
  let done = false;
  function found(at: number) {
    if (done) return;
    done = true;
    start = at;
    parser.pause(); // the rest of the document does not matter
  }
  parser.write(html);
  return start;
}

/** The HTML with the preheader as the first element of its body; unchanged without one. */
export function withPreheader(html: string, preheader: string | null | undefined): string {
  if (!preheader?.trim()) return html;
  const at = contentStart(html);
  return html.slice(0, at) + preheaderHtml(preheader) + html.slice(at);
}
