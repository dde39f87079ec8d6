// Adds tracking to a rendered email's HTML, at send: each web link becomes `/t/c/{token}` (its target
// signed into the token), a hidden honeypot link goes right after `<body>`, and a 1×1 pixel
// `/t/o/{token}` right before `</body>`. A fragment without a `<body>` tag (most templates) gets
// both at its end, the pixel and then the honeypot (never before a doctype). Everything else in
// the document is left byte for byte: the parser (htmlparser2) only locates the `<a>` start tags,
// and each one's href value is replaced in place.
// Not tracked: links other than http(s) (mailto:, tel:, anchors), the unsubscribe link (a scanner
// "clicking" it must not look like engagement, and RFC 8058 wants the URL as sent), links marked
// `data-track="off"`, and URLs too long to sign into a link.
import { Parser } from 'htmlparser2';
import type { Config } from '../config.ts';
import { isWebUrl, MAX_TRACKED_URL, publicBase, signClickToken, signMessageToken } from './trackingTokens.ts';

export type TrackingSwitches = { opens: boolean; clicks: boolean };

type Replacement = { start: number; end: number; text: string };

/** One attribute of a start tag, from where the previous one ended (sticky). */
const ATTRIBUTE = /[\s/]*([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?/y;

/** Where the value of the tag's only href attribute is, relative to the tag; null if not exactly one. */
function hrefValueSpan(tag: string): { start: number; end: number } | null {
  const spans: { start: number; end: number }[] = [];
  ATTRIBUTE.lastIndex = '<a'.length;
  for (let match = ATTRIBUTE.exec(tag); match; match = ATTRIBUTE.exec(tag)) {
    if (match[1].toLowerCase() === 'href' && match[2] !== undefined) {
      const end = match.index + match[0].length;
      spans.push({ start: end - match[2].length, end });
    }
  }
  return spans.length === 1 ? spans[0] : null;
}

function shouldTrack(url: string, attributes: Record<string, string>, base: string): boolean {
  if (attributes['data-track']?.toLowerCase() === 'off') return false;
  // A NUL (a decoded `&#0;`) could not be stored with the hit.
  if (url.length > MAX_TRACKED_URL || url.includes('\0') || !isWebUrl(url)) return false;
  return !url.startsWith(`${base}/u/`) && !url.startsWith(`${base}/t/`);
}

/** The `<a>` rewrites, and where the honeypot (after `<body>`) and pixel (before `</body>`) go. */
function locate(html: string, config: Config, messageId: string) {
  const base = publicBase(config);
  const links: Replacement[] = [];
  let bodyStart: number | null = null;
  let bodyEnd = html.length;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'body') bodyStart = parser.endIndex + 1;
        if (name !== 'a' || attributes.href === undefined) return;
        const url = attributes.href.trim();
        if (!shouldTrack(url, attributes, base)) return;
        const tag = html.slice(parser.startIndex, parser.endIndex + 1);
        const span = hrefValueSpan(tag);
        if (!span) return;
        const href = `${base}/t/c/${signClickToken(config, messageId, url)}`;
        links.push({
          start: parser.startIndex + span.start,
          end: parser.startIndex + span.end,
          text: `"${href}"`,
        });
      },
      onclosetag(name, implied) {
        if (name === 'body' && !implied) bodyEnd = parser.startIndex;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  // Without a <body> tag, the honeypot goes at the end (never before a doctype).
  return { links, bodyStart: bodyStart ?? bodyEnd, bodyEnd, base };
}

function honeypot(base: string, config: Config, messageId: string): string {
  const href = `${base}/t/c/${signMessageToken(config, 'honeypot', messageId)}`;
  return `<a href="${href}" style="display:none!important;mso-hide:all;font-size:0;max-height:0;overflow:hidden" aria-hidden="true" tabindex="-1"></a>`;
}

function pixel(base: string, config: Config, messageId: string): string {
  const src = `${base}/t/o/${signMessageToken(config, 'open', messageId)}`;
  return `<img src="${src}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`;
}

/** The HTML with the tracking the switches allow; unchanged when both are off. */
export function addTracking(
  config: Config,
  html: string,
  messageId: string,
  switches: TrackingSwitches,
): string {
  if (!switches.opens && !switches.clicks) return html;
  const { links, bodyStart, bodyEnd, base } = locate(html, config, messageId);
  const edits: Replacement[] = switches.clicks ? [...links] : [];
  if (switches.clicks)
    edits.push({ start: bodyStart, end: bodyStart, text: honeypot(base, config, messageId) });
  if (switches.opens) edits.push({ start: bodyEnd, end: bodyEnd, text: pixel(base, config, messageId) });
  // Applied from the end, so earlier offsets stay true.
  edits.sort((a, b) => b.start - a.start);
  let out = html;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}
