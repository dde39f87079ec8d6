// Where the SMTP client may connect. A workspace's SMTP host is customer input, so it is held to
// the rule webhook URLs are (webhooks/ssrf.ts): no private, loopback or link-local address,
// unless the operator allows private targets (ALLOW_PRIVATE_TARGETS, never in production) or
// lists the host in SMTP_ALLOWED_HOSTS (a relay on the private network). IP literals are refused
// when saved; names are resolved when the transport is built, and the client connects to the
// address that was checked (with the name as TLS servername, so certificates still verify).
import ipaddr from 'ipaddr.js';
import type { Config } from '../../config.ts';
import { ValidationError } from '../../http/errors.ts';
import { isPublicAddress, type Resolver, resolvePublicAddresses } from '../../net/ssrf.ts';

const bare = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1');

export function isTrustedSmtpHost(config: Config, host: string): boolean {
  return config.ALLOW_PRIVATE_TARGETS || config.SMTP_ALLOWED_HOSTS.includes(bare(host));
}

/** At save: an IP literal must be public (or trusted). `path` names the field for the 400. */
export function checkSmtpHostAtSave(config: Config, host: string, path: string): void {
  const literal = bare(host);
  if (isTrustedSmtpHost(config, host) || !ipaddr.isValid(literal) || isPublicAddress(literal)) return;
  throw new ValidationError([
    {
      path,
      message:
        'must not be a private, loopback or link-local address (the operator may allow a relay with SMTP_ALLOWED_HOSTS)',
    },
  ]);
}

export type ConnectTarget = { host: string; servername?: string };

/** At connect: the checked address to dial, and the name TLS must verify; throws TargetRefusedError. */
export async function smtpConnectTarget(
  config: Config,
  host: string,
  resolve?: Resolver,
): Promise<ConnectTarget> {
  if (isTrustedSmtpHost(config, host)) return { host: bare(host) };
  const [first] = await resolvePublicAddresses(host, resolve);
  const literal = ipaddr.isValid(bare(host));
  return literal
    ? { host: first.address }
    : { host: first.address, servername: bare(host).replace(/\.$/, '') };
}
