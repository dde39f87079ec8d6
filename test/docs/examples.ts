// Reads the request examples of a markdown guide and replays them against the test server.
//
// An exchange is two fenced `http` blocks in a row: a request (`METHOD /path`, headers, a blank
// line, a JSON body) and the response the guide shows (`HTTP/1.1 201 Created`, headers, a blank
// line, a JSON body). Guides are written with realistic values; the replay maps them to the real
// ones: the first workspace id a guide names is the test's workspace, a `Bearer sb_…` key is the
// test's key (unless the guide created that key earlier: then it is the key created), a request without Authorization is sent with the ADMIN's session, and an id or
// secret the guide shows in a response stands, in later requests, for the one the server gave.
//
// What the guide shows is what must come back: the status, and the body, where objects have
// exactly the keys shown (a `"…": "…"` entry allows more) and arrays the elements shown (a last
// element `"…"` allows more). A generated value (an id, a secret, a timestamp) matches any value
// of its shape; everything else must be equal. What the worker does after the answer (a message
// sent, a delivery made) is shown with `<!-- eventually -->` on the line before the request: that
// request is sent again, for up to ten seconds, until its answer holds.

export type Exchange = {
  line: number;
  /** The guide marks it `<!-- eventually -->`: the worker's doing, so it is asked again until it holds. */
  eventually: boolean;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  status: number;
  responseBody?: unknown;
};

const FENCE = /^```http\n([\s\S]*?)^```$/gm;

function parseMessage(text: string): { start: string; headers: Record<string, string>; body?: unknown } {
  const [head, ...rest] = text.split(/\n\n/);
  const [start, ...headerLines] = head.split('\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines.filter((header) => header.trim())) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyText = rest.join('\n\n').trim();
  return { start: start.trim(), headers, body: bodyText ? JSON.parse(bodyText) : undefined };
}

/** The exchanges of one guide, in order; a request without its response is an error. */
export function readExchanges(markdown: string): Exchange[] {
  const blocks = [...markdown.matchAll(FENCE)].map((match) => {
    const before = markdown.slice(0, match.index);
    return {
      text: match[1],
      line: before.split('\n').length,
      eventually: before.trimEnd().endsWith('<!-- eventually -->'),
    };
  });
  const exchanges: Exchange[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const request = parseMessage(blocks[i].text);
    const requestLine = /^(GET|POST|PUT|PATCH|DELETE) (\S+)$/.exec(request.start);
    if (!requestLine) throw new Error(`line ${blocks[i].line}: an http block must start with METHOD /path`);
    if (blocks[i].eventually && requestLine[1] !== 'GET') {
      throw new Error(`line ${blocks[i].line}: only a GET may be sent again (<!-- eventually -->)`);
    }
    const response = blocks[i + 1] && parseMessage(blocks[i + 1].text);
    const statusLine = response && /^HTTP\/1\.1 (\d{3})\b/.exec(response.start);
    if (!statusLine) throw new Error(`line ${blocks[i].line}: a request must be followed by its response`);
    exchanges.push({
      line: blocks[i].line,
      eventually: blocks[i].eventually,
      method: requestLine[1],
      path: requestLine[2],
      headers: request.headers,
      body: request.body,
      status: Number(statusLine[1]),
      responseBody: response.body,
    });
    i++;
  }
  return exchanges;
}

const GENERATED_ID = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;
const SECRET = /^(sb_|whsec_|pk_)\S+$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ELLIPSIS = '…';

/** Shown values (ids, secrets) and the real ones they stand for, within one guide. */
export class Substitutions {
  private readonly values = new Map<string, string>();

  set(shown: string, actual: string) {
    this.values.set(shown, actual);
  }

  /** Replaces every shown id or secret in `text` by the real one. */
  apply(text: string): string {
    let out = text;
    for (const [shown, actual] of this.values) out = out.split(shown).join(actual);
    return out;
  }

  /**
   * Why `actual` does not match what the guide shows, or undefined when it does; the ids it pairs
   * are kept only when the whole answer matches (a retried request may match in part).
   */
  match(shown: unknown, actual: unknown): string | undefined {
    const before = new Map(this.values);
    const problem = this.mismatch(shown, actual);
    if (problem) {
      this.values.clear();
      for (const [key, value] of before) this.values.set(key, value);
    }
    return problem;
  }

  /** Why `actual` does not match what the guide shows at `path`, or undefined when it does. */
  mismatch(shown: unknown, actual: unknown, path = 'body'): string | undefined {
    if (Array.isArray(shown)) return this.arrayMismatch(shown, actual, path);
    if (shown && typeof shown === 'object') return this.objectMismatch(shown as object, actual, path);
    if (typeof shown === 'string' && typeof actual === 'string' && this.generated(shown, actual)) return;
    if (shown === actual) return;
    return `${path}: the guide shows ${JSON.stringify(shown)}, the server answered ${JSON.stringify(actual)}`;
  }

  private generated(shown: string, actual: string): boolean {
    if (TIMESTAMP.test(shown)) return TIMESTAMP.test(actual);
    const shape = GENERATED_ID.test(shown) ? GENERATED_ID : SECRET.test(shown) ? SECRET : undefined;
    if (!shape?.test(actual) || shown.split('_')[0] !== actual.split('_')[0]) return false;
    const known = this.values.get(shown);
    if (known !== undefined) return known === actual;
    this.values.set(shown, actual);
    return true;
  }

  private arrayMismatch(shown: unknown[], actual: unknown, path: string): string | undefined {
    if (!Array.isArray(actual))
      return `${path}: the guide shows an array, the server answered ${JSON.stringify(actual)}`;
    const open = shown.at(-1) === ELLIPSIS;
    const items = open ? shown.slice(0, -1) : shown;
    if (open ? actual.length < items.length : actual.length !== items.length) {
      return `${path}: the guide shows ${items.length}${open ? ' or more' : ''} items, the server answered ${actual.length}`;
    }
    for (const [index, item] of items.entries()) {
      const problem = this.mismatch(item, actual[index], `${path}[${index}]`);
      if (problem) return problem;
    }
  }

  private objectMismatch(shown: object, actual: unknown, path: string): string | undefined {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) {
      return `${path}: the guide shows an object, the server answered ${JSON.stringify(actual)}`;
    }
    const entries = Object.entries(shown).filter(([key]) => key !== ELLIPSIS);
    const open = entries.length !== Object.keys(shown).length;
    for (const [key, value] of entries) {
      if (!Object.hasOwn(actual, key)) return `${path}.${key}: shown in the guide, missing from the answer`;
      const problem = this.mismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (problem) return problem;
    }
    if (!open) {
      const extra = Object.keys(actual).filter((key) => !Object.hasOwn(shown, key));
      if (extra.length > 0)
        return `${path}: the server answered keys the guide does not show: ${extra.join(', ')}`;
    }
  }
}
