// SSRF protection for outbound webhooks. A customer-supplied URL must not reach loopback, private
// networks, link-local (cloud metadata at 169.254.169.254), CGNAT, IPv4-mapped or translated
// addresses. The check runs at connection time on every address DNS returns, so a name that
// resolves to 10.x (or changes to one after the endpoint was saved) is refused; undici skips the
// lookup for IP literals, so those are checked before the request. Redirects are never followed.
import dns, { type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';

export const BLOCKED_MESSAGE = 'blocked: private address';

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(host: string, address: string) {
    super(`${BLOCKED_MESSAGE} (${host} → ${address})`);
  }
}

/** Only ipaddr.js's `unicast` range is public; every special-purpose range is refused. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.parse(address).range() === 'unicast';
}

/** The URL's host when it is an IP literal (IPv6 without its brackets), else null. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) ? host : null;
}

/** Throws BlockedAddressError for an IP-literal URL that is not public. */
export function checkLiteralUrl(url: URL): void {
  const literal = literalAddress(url);
  if (literal !== null && !isPublicAddress(literal)) throw new BlockedAddressError(url.hostname, literal);
}

type Resolver = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, callback) => dns.lookup(hostname, { all: true }, callback);

/** A net `lookup` that resolves every address and refuses the host if any one is not public. */
export function guardedLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const family = options.family === 4 || options.family === 6 ? options.family : 0;
      const usable = addresses.filter((entry) => family === 0 || entry.family === family);
      const blocked = usable.find((entry) => !isPublicAddress(entry.address));
      if (blocked || usable.length === 0) {
        const reason = blocked ? new BlockedAddressError(hostname, blocked.address) : new Error('no address');
        return callback(reason as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) (callback as (e: null, all: LookupAddress[]) => void)(null, usable);
      else callback(null, usable[0].address, usable[0].family);
    });
  };
}

export type DeliveryHttp = { agent: Agent; allowPrivate: boolean };

export function createDeliveryHttp(options: {
  allowPrivate: boolean;
  timeoutMs: number;
  resolve?: Resolver;
}): DeliveryHttp {
  const agent = new Agent({
    connect: {
      timeout: options.timeoutMs,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup(options.resolve) }),
    },
    keepAliveTimeout: 10_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  return { agent, allowPrivate: options.allowPrivate };
}

/** Finds our refusal anywhere in an error's cause chain (undici may wrap connection errors). */
export function blockedCause(error: unknown): BlockedAddressError | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof BlockedAddressError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
