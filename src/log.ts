// One pino logger for the process. Secrets never reach the log: passwords, keys, cookies,
// Authorization headers and signing secrets are redacted wherever they appear.
import querystring from 'node:querystring';
import pino from 'pino';

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

export function createLogger(level: string, name = 'switchboard'): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
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
