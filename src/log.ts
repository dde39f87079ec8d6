// One pino logger for the process. Secrets never reach the log: passwords, keys, cookies,
// Authorization headers and signing secrets are redacted wherever they appear.
import { createRequire } from 'node:module';
import querystring from 'node:querystring';
import pino from 'pino';

// pino-pretty (~30 modules) is required only for LOG_FORMAT=pretty: every process imports this
// module, most of them log JSON, and the CLI's start-up is mostly module loading.
const require = createRequire(import.meta.url);

export type Logger = pino.Logger;

export const REDACTED_PATHS = [
  'password',
  '*.password',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-webhook-signature"]',
  'req.headers["webhook-signature"]',
  'res.headers["set-cookie"]',
];

/**
 * A start-up failure whose message says all an operator needs: what is wrong and what to set. It is
 * logged as that one line; a stack trace would only bury it.
 */
export class StartupError extends Error {}

export type LogFormat = 'json' | 'pretty';

export function createLogger(level: string, name = 'switchboard', format: LogFormat = 'json'): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return format === 'pretty' ? pino(options, readableLines()) : pino(options);
}

/** A request line as the HTTP layer logs it (src/http/app.ts). */
type RequestLine = { msg: 'request'; method: string; url: string; status: number; ms: number };

const isRequestLine = (line: Record<string, unknown>): line is RequestLine & Record<string, unknown> =>
  line.msg === 'request' && typeof line.method === 'string' && typeof line.status === 'number';

/** The request id stays in the JSON log, where lines are searched; a person reads the request. */
function requestInOneLine(record: RequestLine & Record<string, unknown>): Record<string, unknown> {
  const { method, url, status, ms, reqId: _reqId, ...rest } = record;
  return { ...rest, msg: `${method} ${url} ${status} ${ms.toFixed(1)} ms` };
}

/**
 * For a person at a terminal: pino-pretty's time, level and message, other fields after them on
 * the same line, an error's stack below it; a request reads "GET /path 200 1.2 ms". Written in
 * this thread (pino's transports run in a worker and may lose the last lines at process.exit), after
 * redaction, which pino applies before any destination.
 */
function readableLines(): { write: (line: string) => void } {
  const { isColorSupported, prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');
  const pretty = prettyFactory({
    colorize: isColorSupported,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
    singleLine: true,
  });
  return {
    write(line: string) {
      const record = JSON.parse(line) as Record<string, unknown>;
      process.stdout.write(pretty(isRequestLine(record) ? requestInOneLine(record) : record));
    },
  };
}

/**
 * Hides the value of every `key` query parameter before a URL is logged (API keys may travel as
 * one). Names are compared decoded, as the query parser reads them: `?%6bey=` authenticates too.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const split = pair.indexOf('=');
      const name = split === -1 ? pair : pair.slice(0, split);
      return querystring.unescape(name.replace(/\+/g, ' ')) === 'key' ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}
