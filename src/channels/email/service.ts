// A workspace's email channel: saving (secrets sealed, the SMTP host checked), reading it back
// without secrets, and opening it for sending. A PUT replaces the configuration, with two
// conveniences for secrets the client cannot read back: a left-out password is kept while host
// and username are unchanged (else dropped, so a stored password never goes to another server),
// and a left-out DKIM key is kept while domain and selector are unchanged.
import type { Config } from '../../config.ts';
import { NotFoundError, ValidationError } from '../../core/errors.ts';
import type { Db } from '../../db/pool.ts';
import { decryptSecret, encryptSecret, type StoredSecret } from '../../secrets/index.ts';
import { saveChannelConfig } from '../configChanges.ts';
import { type ChannelConfigRow, findChannelConfig } from '../queries.ts';
import { channelSecretContext } from '../secretStore.ts';
import type { PutEmailConfigBody } from './schemas.ts';
import { checkSmtpHostAtSave } from './target.ts';

export type EmailSettings = {
  host: string;
  port: number;
  secure: boolean;
  username: string | null;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  dkim: { domain: string; selector: string } | null;
  /** Absent in rows saved before it existed: read as null. */
  unsubscribeMailto?: string | null;
};

/** The settings with their secrets opened, for the transport only: never logged, never answered. */
export type OpenedEmailSettings = EmailSettings & { password: string | null; dkimPrivateKey: string | null };

type Server = {
  host: string;
  port: number;
  secure: boolean;
  username: string | null;
  password?: string | null;
};

const secretContext = (workspaceId: string, name: string) => channelSecretContext(workspaceId, 'email', name);

/** Host, port, TLS and credentials from `smtpUrl` or from the separate fields (one or the other). */
function serverOf(body: PutEmailConfigBody): Server {
  const separate = ['host', 'port', 'secure', 'username', 'password'].filter(
    (field) => body[field as keyof PutEmailConfigBody] !== undefined,
  );
  if (body.smtpUrl !== undefined) {
    if (separate.length > 0) {
      throw new ValidationError([
        { path: 'body.smtpUrl', message: `give either smtpUrl or ${separate.join(', ')}, not both` },
      ]);
    }
    return serverOfUrl(body.smtpUrl);
  }
  if (!body.host)
    throw new ValidationError([{ path: 'body.host', message: 'is required (or give smtpUrl)' }]);
  const secure = body.secure ?? body.port === 465;
  return {
    host: body.host,
    port: body.port ?? (secure ? 465 : 587),
    secure,
    username: body.username ?? null,
    password: body.password,
  };
}

const URL_MESSAGE = 'must be smtp://[user[:password]@]host[:port] or smtps://…';

function serverOfUrl(text: string): Server {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ValidationError([{ path: 'body.smtpUrl', message: URL_MESSAGE }]);
  }
  const secure = url.protocol === 'smtps:';
  if (
    (!secure && url.protocol !== 'smtp:') ||
    !url.hostname ||
    (url.pathname !== '' && url.pathname !== '/')
  ) {
    throw new ValidationError([{ path: 'body.smtpUrl', message: URL_MESSAGE }]);
  }
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw new ValidationError([
        { path: 'body.smtpUrl', message: 'has a badly percent-encoded user or password' },
      ]);
    }
  };
  return {
    host: url.hostname.toLowerCase(),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    username: url.username ? decode(url.username) : null,
    password: url.password ? decode(url.password) : undefined,
  };
}

function keptPassword(server: Server, stored: ChannelConfigRow | null): StoredSecret | undefined {
  const before = stored?.settings as EmailSettings | undefined;
  const sameServer = before?.host === server.host && before?.username === server.username;
  return sameServer ? stored?.secrets.password : undefined;
}

function keptDkimKey(dkim: PutEmailConfigBody['dkim'], stored: ChannelConfigRow | null): StoredSecret {
  const before = (stored?.settings as EmailSettings | undefined)?.dkim;
  const key = stored?.secrets.dkimPrivateKey;
  if (key && before?.domain === dkim?.domain && before?.selector === dkim?.selector) return key;
  throw new ValidationError([
    { path: 'body.dkim.privateKey', message: 'is required (no key is stored for this domain and selector)' },
  ]);
}

export async function putEmailConfig(db: Db, config: Config, workspaceId: string, body: PutEmailConfigBody) {
  const server = serverOf(body);
  await checkSmtpHostAtSave(config, server.host, body.smtpUrl === undefined ? 'body.host' : 'body.smtpUrl');
  const stored = await findChannelConfig(db, workspaceId, 'email');
  const secrets: Record<string, StoredSecret> = {};
  const password = server.password === undefined ? keptPassword(server, stored) : server.password;
  if (typeof password === 'string')
    secrets.password = encryptSecret(password, secretContext(workspaceId, 'password'));
  else if (password) secrets.password = password;
  if (body.dkim) {
    secrets.dkimPrivateKey = body.dkim.privateKey
      ? encryptSecret(body.dkim.privateKey, secretContext(workspaceId, 'dkimPrivateKey'))
      : keptDkimKey(body.dkim, stored);
  }
  const settings: EmailSettings = {
    host: server.host,
    port: server.port,
    secure: server.secure,
    username: server.username,
    fromEmail: body.fromEmail,
    fromName: body.fromName ?? null,
    replyTo: body.replyTo ?? null,
    dkim: body.dkim ? { domain: body.dkim.domain, selector: body.dkim.selector } : null,
    unsubscribeMailto: body.unsubscribeMailto ?? null,
  };
  return saveChannelConfig(db, { workspaceId, channel: 'email', settings, secrets });
}

/** The API's view: settings, and whether each secret is set. */
export function toEmailConfig(row: ChannelConfigRow) {
  const settings = row.settings as EmailSettings;
  return {
    channel: 'email' as const,
    ...settings,
    unsubscribeMailto: settings.unsubscribeMailto ?? null,
    passwordSet: row.secrets.password !== undefined,
    dkim: settings.dkim
      ? { ...settings.dkim, privateKeySet: row.secrets.dkimPrivateKey !== undefined }
      : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export const noEmailChannel = () =>
  new NotFoundError('The email channel', 'This workspace has no email channel configured.');

export async function getEmailConfigRow(db: Db, workspaceId: string): Promise<ChannelConfigRow> {
  const row = await findChannelConfig(db, workspaceId, 'email');
  if (!row) throw noEmailChannel();
  return row;
}

/** Opens the row's secrets (throws SecretDecryptionError when the key that sealed them is gone). */
export function openEmailSettings(row: ChannelConfigRow): OpenedEmailSettings {
  const open = (name: string) =>
    row.secrets[name] ? decryptSecret(row.secrets[name], secretContext(row.workspace_id, name)) : null;
  return {
    ...(row.settings as EmailSettings),
    password: open('password'),
    dkimPrivateKey: open('dkimPrivateKey'),
  };
}
