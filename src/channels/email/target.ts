// Where the SMTP client may connect. A workspace's SMTP host is customer input, so it is held to
// the rule webhook URLs are (webhooks/ssrf.ts): no private, loopback or link-local address,
// unless the operator allows private targets (ALLOW_PRIVATE_TARGETS, never in production) or
// lists the host in SMTP_ALLOWED_HOSTS (a relay on the private network). The same check runs when
// the host is saved (a literal, or every address the name resolves to then) and when the
// transport is built, where the client connects to the address that was checked (with the name
// as TLS servername, so certificates still verify).
import ipaddr from 'ipaddr.js';
import type { Config } from '../../config.ts';
import { ValidationError } from '../../core/errors.ts';
import { checkTargetAtSave, type Resolver, resolvePublicAddresses } from '../../net/ssrf.ts';

const bare = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1');

export function isTrustedSmtpHost(config: Config, host: string): boolean {
  return config.ALLOW_PRIVATE_TARGETS || config.SMTP_ALLOWED_HOSTS.includes(bare(host));
}

/** Where a refused SMTP host may still be allowed: the one remedy for production, one for development. */
export const SMTP_PRIVATE_HINT =
  'list a relay on your private network in SMTP_ALLOWED_HOSTS, or (development only, never in production) ' +
  'allow private targets with ALLOW_PRIVATE_TARGETS=true';

/** At save: the host must be public (or trusted), as at connect. `path` names the field for the 400. */
export async function checkSmtpHostAtSave(config: Config, host: string, path: string, resolve?: Resolver) {
  if (isTrustedSmtpHost(config, host)) return;
  try {
    await checkTargetAtSave(host, resolve);
  } catch {
    throw new ValidationError([
      {
        path,
        message: `must not be a private, loopback or link-local address (it is, or resolves to, one): ${SMTP_PRIVATE_HINT}`,
      },
    ]);
  }
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
