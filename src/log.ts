// One pino logger for the process. Secrets never reach the log: passwords, keys, cookies,
// Authorization headers and signing secrets are redacted wherever they appear.
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

/** Removes `key=` from a URL before it is logged (API keys may travel as a query parameter). */
export function redactUrl(url: string): string {
  return url.replace(/([?&]key=)[^&]*/g, '$1[redacted]');
}
