// One HTTP attempt of one message: sign, POST the stored body byte-for-byte, and classify what
// came back. Success is a 2xx within the timeout; a redirect, any other status, a timeout, a
// network error or a refused address is a failure with the reason in `error`.
// undici's `request` on the SSRF-checking Agent, not `fetch`: it follows no redirects, and skips
// the WHATWG Request/Response/stream layers, which were most of the sending cost in profiles.
import type { Readable } from 'node:stream';
import { checkLiteralUrl, type DeliveryHttp, refusalCause, UNRESOLVABLE_MESSAGE } from '../net/ssrf.ts';
import { signingHeaders } from './signing.ts';

export const RESPONSE_BODY_LIMIT = 4096;

let undiciRequest: typeof import('undici').request | undefined;

export type AttemptRequest = {
  attemptId: string;
  messageId: string;
  event: string;
  body: string;
  url: string;
  secrets: readonly string[];
};

export type AttemptResult = {
  success: boolean;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  /** Seconds the receiver asked us to wait (Retry-After), if it said. */
  retryAfterSeconds: number | null;
  /** 410 Gone: the receiver wants nothing more. */
  gone: boolean;
  /** Not sent: this process lacks the key of the signing secret. Not the endpoint's failure. */
  keyMissing?: boolean;
};

export type SendOptions = { timeoutMs: number; userAgent: string };

/**
 * Reads at most the first 4 KB of a response, then lets the rest go; NUL becomes U+FFFD.
 * Listeners rather than `for await`: an async iterator per response showed in profiles.
 */
function readHead(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    // Stays listening for errors: one emitted after the end must not go unhandled.
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      body.off('data', onData);
      body.destroy();
      if (error) return reject(error);
      // PostgreSQL's text (and jsonb) cannot hold U+0000: kept, it failed the whole batch's recording.
      const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
      resolve(text.replaceAll('\u0000', '\uFFFD'));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= RESPONSE_BODY_LIMIT) finish();
    };
    body.on('data', onData).on('end', finish).on('error', finish);
  });
}

function header(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

const NAME_NOT_RESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'ENODATA']);

/**
 * The reason an attempt failed, as recorded for the customer. A network error is named by its
 * code only: Node's messages carry the address dialled, which is not the customer's to see.
 */
function failureText(error: unknown, timedOut: boolean, timeoutMs: number): string {
  const refused = refusalCause(error);
  if (refused) return refused.message;
  if (timedOut) return `timeout: no response within ${timeoutMs} ms`;
  const failure = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = failure.cause?.code ?? failure.code;
  if (code && NAME_NOT_RESOLVED.has(code)) return UNRESOLVABLE_MESSAGE;
  return `network error: ${code ?? 'connection failed'}`;
}

function statusError(status: number, location: string | null): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400)
    return `redirect not followed: ${status} to ${location ?? '(no Location)'}`;
  return `HTTP ${status}`;
}

export function requestHeaders(request: AttemptRequest, userAgent: string, now = Date.now()) {
  return {
    'Content-Type': 'application/json',
    'User-Agent': userAgent,
    'X-Webhook-Event': request.event,
    'X-Webhook-Delivery': request.attemptId,
    ...signingHeaders(request.secrets, request.messageId, request.body, now),
  };
}

export async function sendAttempt(
  http: DeliveryHttp,
  attempt: AttemptRequest,
  options: SendOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = {
    success: false,
    responseStatus: null,
    responseBody: null,
    retryAfterSeconds: null,
    gone: false,
  };
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    if (!http.allowPrivate) checkLiteralUrl(new URL(attempt.url));
    // Loaded at the first delivery (as undici's Agent in src/net/ssrf.ts), not at import; kept,
    // so later sends do not await a dynamic import each.
    undiciRequest ??= (await import('undici')).request;
    const request = undiciRequest;
    const response = await request(attempt.url, {
      method: 'POST',
      body: attempt.body,
      headers: requestHeaders(attempt, options.userAgent),
      dispatcher: http.agent,
      signal,
    });
    const responseBody = await readHead(response.body).catch(() => '');
    const error = statusError(response.statusCode, header(response.headers.location));
    return {
      success: error === null,
      responseStatus: response.statusCode,
      responseBody,
      durationMs: elapsed(),
      error,
      retryAfterSeconds: parseRetryAfter(header(response.headers['retry-after'])),
      gone: response.statusCode === 410,
    };
  } catch (error) {
    return { ...failed, durationMs: elapsed(), error: failureText(error, signal.aborted, options.timeoutMs) };
  }
}
