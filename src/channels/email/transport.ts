// One pooled nodemailer transport per workspace, per process, living in the SMTP thread
// (smtpPool.ts). Pooling matters: a new SMTP session per message runs at ~1/18 the pooled rate,
// and the default `maxMessages` (100, then reconnect) costs ~25 % more. Each use compares the
// row's `version` with the cached one, so a PUT (in any process) rebuilds the transport on its
// next use, and a DELETE closes it. Secrets are opened and the host checked here, in the process
// that read them; the thread gets the options to dial with.
import type { AppContext } from '../../core/context.ts';
import type { ChannelConfigRow } from '../queries.ts';
import { type OpenedEmailSettings, openEmailSettings } from './service.ts';
import { type SmtpPool, smtpPool, stopSmtpThread } from './smtpPool.ts';
import { smtpConnectTarget } from './target.ts';

/** Headers the DKIM signature covers: nodemailer's default list leaves out List-Unsubscribe-Post (RFC 8058 needs it). */
export const DKIM_SIGNED_HEADERS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:' +
  'List-Unsubscribe:List-Unsubscribe-Post:List-Id:X-Switchboard-Message-ID';

export type EmailTransport = { version: number; settings: OpenedEmailSettings; pool: SmtpPool };

/** SMTP connections per workspace and process (bench/broadcast.ts compares with the same number). */
export const SMTP_POOL_CONNECTIONS = 5;

type Entry = { version: number; ready: Promise<EmailTransport> };
const transports = new Map<string, Entry>();

async function build(app: AppContext, row: ChannelConfigRow): Promise<EmailTransport> {
  const settings = openEmailSettings(row);
  const target = await smtpConnectTarget(app.config, settings.host);
  const timeout = app.config.SMTP_TIMEOUT_MS;
  const pool = smtpPool({
    pool: true,
    maxConnections: SMTP_POOL_CONNECTIONS,
    maxMessages: Number.POSITIVE_INFINITY,
    host: target.host,
    port: settings.port,
    secure: settings.secure,
    // The checked address is dialled; the certificate must still name the configured host.
    tls: target.servername ? { servername: target.servername } : undefined,
    auth: settings.username ? { user: settings.username, pass: settings.password ?? '' } : undefined,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout * 4,
    dkim: settings.dkim
      ? {
          domainName: settings.dkim.domain,
          keySelector: settings.dkim.selector,
          privateKey: settings.dkimPrivateKey ?? '',
          headerFieldNames: DKIM_SIGNED_HEADERS,
        }
      : undefined,
    logger: false,
  });
  return { version: row.version, settings, pool };
}

/** The workspace's transport for this version of its configuration, built on first use. */
export function transportFor(app: AppContext, row: ChannelConfigRow): Promise<EmailTransport> {
  const cached = transports.get(row.workspace_id);
  if (cached && cached.version === row.version) return cached.ready;
  if (cached) void closeTransport(row.workspace_id);
  const ready = build(app, row);
  const entry = { version: row.version, ready };
  transports.set(row.workspace_id, entry);
  // A failed build (unresolvable or refused host, unreadable secret) is not kept: the next use tries again.
  ready.catch(() => {
    if (transports.get(row.workspace_id) === entry) transports.delete(row.workspace_id);
  });
  return ready;
}

/** Closes the workspace's pooled connections (after DELETE), or every workspace's and the SMTP thread (on shutdown). */
export async function closeTransport(workspaceId?: string): Promise<void> {
  const ids = workspaceId === undefined ? [...transports.keys()] : [workspaceId];
  await Promise.all(
    ids.map(async (id) => {
      const entry = transports.get(id);
      transports.delete(id);
      const transport = await entry?.ready.catch(() => null);
      transport?.pool.close();
    }),
  );
  if (workspaceId === undefined) await stopSmtpThread();
}
