// Secrets never reach the audit log. Before and after are redacted by the NAMES of their fields,
// not by a list of each feature's settings: a field named like a secret (password, secret, token,
// private key, key hash, credentials, authorization…) keeps its place but loses its value, so an
// entry still says that a secret was set or changed, never what it is. A setting added later under
// such a name is covered without anyone remembering this file; one named otherwise is not, which
// is why the names follow the API's own (`password`, `privateKey`, `secret`, `botToken`…).
// Booleans and nulls under those names stay (`passwordSet: true` says nothing secret), and a URL's
// embedded password (`smtp://user:pass@host`) is cut out wherever it appears.

export const REDACTED = '[redacted]';

/** Field names whose values are secrets (compared without case, `_` and `-`). */
const SECRET_NAME =
  /(secret|password|passwd|passphrase|token|privatekey|keyhash|hash$|credential|authorization|cookie|apikey|^key$|^dsn$)/;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name.toLowerCase().replace(/[_-]/g, ''));
}

/** `scheme://user:password@host…` → `scheme://user:[redacted]@host…`. */
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/?#@\s:]*):[^/?#@\s]*@/i;

function redactString(value: string): string {
  return value.replace(URL_PASSWORD, `$1:${REDACTED}@`);
}

/** A copy of `value` (JSON-like) with every secret left out. */
export function redact(value: unknown): unknown {
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    if (field === undefined) continue;
    const keep = field === null || typeof field === 'boolean' || !isSecretName(name);
    out[name] = keep ? redact(field) : REDACTED;
  }
  return out;
}
