// SSRF protection for customer-supplied targets (outbound webhook URLs, SMTP hosts). A
// target must not reach loopback, private networks, link-local (cloud metadata at
// 169.254.169.254), CGNAT, or an IPv6 form that embeds one of those (IPv4-compatible, mapped,
// translated, NAT64, 6to4, Teredo). The check runs at connection time on every address DNS
// returns, so a name that resolves to 10.x (or changes to one after the endpoint was saved) is
// refused; undici skips the lookup for IP literals, so those are checked before the request.
// Redirects are never followed. Refusals say only "blocked: private address" or "could not
// resolve": the delivery log must not tell a customer what internal names resolve to, or which exist.
import dns, { type LookupAddress } from 'node:dns';
import { createRequire } from 'node:module';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent } from 'undici';

const require = createRequire(import.meta.url);

export const BLOCKED_MESSAGE = 'blocked: private address';
export const UNRESOLVABLE_MESSAGE = 'could not resolve';

/** Our refusal to connect; its message is all that is recorded. */
export class TargetRefusedError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

export class BlockedAddressError extends TargetRefusedError {
  constructor() {
    super(BLOCKED_MESSAGE, 'EBLOCKEDADDRESS');
  }
}

export class UnresolvableHostError extends TargetRefusedError {
  constructor() {
    super(UNRESOLVABLE_MESSAGE, 'EUNRESOLVABLE');
  }
}

type IPv6 = ipaddr.IPv6;
const ipv4At = (bytes: number[], offset: number) => bytes.slice(offset, offset + 4);

/**
 * IPv6 forms that carry an IPv4 address, and where it sits (RFC 4291, 6052, 6145, 3056, 4380).
 * The local-use NAT64 prefix may be used with any of RFC 6052's prefix lengths from /48 on, so
 * every position it could take must be public. Teredo carries a server and a client (inverted).
 */
const EMBEDDINGS: { prefix: [IPv6, number]; embedded: (bytes: number[]) => number[][] }[] = [
  { prefix: ipaddr.IPv6.parseCIDR('::/96'), embedded: (b) => [ipv4At(b, 12)] },
  { prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), embedded: (b) => [ipv4At(b, 12)] },
  { prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), embedded: (b) => [ipv4At(b, 12)] },
  { prefix: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), embedded: (b) => [ipv4At(b, 12)] },
  {
    prefix: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'),
    embedded: (b) => [
      [b[6], b[7], b[9], b[10]], // /48: bits 64–71 are the reserved u octet
      [b[7], b[9], b[10], b[11]], // /56
      ipv4At(b, 9), // /64
      ipv4At(b, 12), // /96
    ],
  },
  { prefix: ipaddr.IPv6.parseCIDR('2002::/16'), embedded: (b) => [ipv4At(b, 2)] },
  {
    prefix: ipaddr.IPv6.parseCIDR('2001::/32'),
    embedded: (b) => [ipv4At(b, 4), ipv4At(b, 12).map((byte) => byte ^ 0xff)],
  },
];

function isPublicIPv4(bytes: number[]): boolean {
  return ipaddr.fromByteArray(bytes).range() === 'unicast';
}

function isPublicIPv6(address: IPv6): boolean {
  const embedding = EMBEDDINGS.find(({ prefix }) => address.match(prefix));
  if (embedding) return embedding.embedded(address.toByteArray()).every(isPublicIPv4);
  return address.range() === 'unicast';
}

/**
 * Whether connecting to this address reaches the public internet: only ipaddr.js's `unicast`
 * range, and the IPv4-embedding IPv6 forms only when every IPv4 address they embed is public.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? parsed.range() === 'unicast' : isPublicIPv6(parsed as IPv6);
}

/** The URL's host when it is an IP literal (IPv6 without its brackets), else null. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) ? host : null;
}

/** Throws BlockedAddressError for an IP-literal URL that is not public. */
export function checkLiteralUrl(url: URL): void {
  const literal = literalAddress(url);
  if (literal !== null && !isPublicAddress(literal)) throw new BlockedAddressError();
}

export type Resolver = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, callback) => dns.lookup(hostname, { all: true }, callback);

/**
 * Resolves a host (name or literal) and returns its addresses only if every one is public:
 * the check any feature dialling a customer-supplied host (webhooks, SMTP) makes before connecting.
 */
export function resolvePublicAddresses(
  hostname: string,
  resolve: Resolver = systemResolver,
): Promise<LookupAddress[]> {
  const literal = hostname.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.isValid(literal)) {
    if (!isPublicAddress(literal)) return Promise.reject(new BlockedAddressError());
    return Promise.resolve([{ address: literal, family: ipaddr.parse(literal).kind() === 'ipv4' ? 4 : 6 }]);
  }
  return new Promise((done, fail) =>
    resolve(hostname, (error, addresses) => {
      if (error || addresses.length === 0) return fail(new UnresolvableHostError());
      if (addresses.some((entry) => !isPublicAddress(entry.address))) return fail(new BlockedAddressError());
      done(addresses);
    }),
  );
}

/**
 * The check made when a target is saved, the same rule as at connection time: a literal or any
 * address the name resolves to now must be public. A name that does not resolve now is accepted
 * (its DNS may be published after the endpoint or channel is saved, and a passing resolver fault
 * must not refuse a save); every send checks again and records "could not resolve".
 */
export async function checkTargetAtSave(hostname: string, resolve?: Resolver): Promise<void> {
  try {
    await resolvePublicAddresses(hostname, resolve);
  } catch (error) {
    if (error instanceof BlockedAddressError) throw error;
  }
}

/** What a refusal to save tells the operator of a development deployment. */
export const ALLOW_PRIVATE_HINT =
  'a development deployment allows such targets with ALLOW_PRIVATE_TARGETS=true (never in production)';

/** A net `lookup` that resolves every address and refuses the host if any one is not public. */
export function guardedLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolvePublicAddresses(hostname, resolve).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = addresses.filter((entry) => family === 0 || entry.family === family);
        if (usable.length === 0) return callback(new UnresolvableHostError(), '', 0);
        if (options.all) (callback as (e: null, all: LookupAddress[]) => void)(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (error: TargetRefusedError) => callback(error, '', 0),
    );
  };
}

export type DeliveryHttp = { agent: Agent; allowPrivate: boolean };

export function createDeliveryHttp(options: {
  allowPrivate: boolean;
  timeoutMs: number;
  resolve?: Resolver;
}): DeliveryHttp {
  // undici (~110 modules) is required when a sender is made, not when its module is imported:
  // the CLI reaches this module through the webhook commands and most of them send nothing.
  const { Agent } = require('undici') as typeof import('undici');
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
export function refusalCause(error: unknown): TargetRefusedError | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof TargetRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
