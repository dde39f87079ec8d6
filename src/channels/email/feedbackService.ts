// Saving and showing the provider feedback endpoints of the email channel. SES is pinned to one
// SNS topic, SendGrid to its verification key, and Postmark to HTTP basic auth and/or a secret
// header, whose secrets are sealed like the SMTP password: a left-out password (or header value)
// is kept while the username (or header name) is unchanged, so it never guards another name.
import type { Config } from '../../config.ts';
import { ValidationError } from '../../core/errors.ts';
import type { Db } from '../../db/pool.ts';
import { decryptSecret, encryptSecret, type StoredSecret } from '../../secrets/index.ts';
import {
  type FeedbackEndpointRow,
  type FeedbackProvider,
  findFeedbackEndpoint,
  upsertFeedbackEndpoint,
} from './feedbackQueries.ts';
import type { PutPostmarkFeedbackBody } from './feedbackSchemas.ts';
import { forgetEmailSending } from './send.ts';

// The context channelSecretStores (key rotation) rebuilds: keep the two in step.
const secretContext = (workspaceId: string, name: string) => `${workspaceId}:feedback:postmark:${name}`;

type PostmarkSettings = { basicAuth: { username: string } | null; header: { name: string } | null };

export async function putFeedbackEndpoint(
  db: Db,
  workspaceId: string,
  provider: Exclude<FeedbackProvider, 'postmark'>,
  settings: { topicArn: string } | { publicKey: string },
) {
  const stored = await upsertFeedbackEndpoint(db, { workspaceId, provider, settings, secrets: {} });
  forgetEmailSending(workspaceId); // its sends carry this provider's headers from now on
  return stored;
}

/** One secret: the new value sealed, or the stored one while its name is unchanged, else a 400. */
function keptOrNew(
  field: { given?: string; sameName: boolean; stored?: StoredSecret },
  workspaceId: string,
  name: string,
  path: string,
): StoredSecret {
  if (field.given !== undefined) return encryptSecret(field.given, secretContext(workspaceId, name));
  if (field.sameName && field.stored) return field.stored;
  throw new ValidationError([{ path, message: 'is required (none is stored for this name)' }]);
}

export async function putPostmarkEndpoint(db: Db, workspaceId: string, body: PutPostmarkFeedbackBody) {
  if (!body.basicAuth && !body.header) {
    throw new ValidationError([{ path: 'body', message: 'give basicAuth, header or both' }]);
  }
  const stored = await findFeedbackEndpoint(db, workspaceId, 'postmark');
  const before = stored?.settings as PostmarkSettings | undefined;
  const secrets: Record<string, StoredSecret> = {};
  if (body.basicAuth) {
    const sameName = before?.basicAuth?.username === body.basicAuth.username;
    const field = { given: body.basicAuth.password, sameName, stored: stored?.secrets.password };
    secrets.password = keptOrNew(field, workspaceId, 'password', 'body.basicAuth.password');
  }
  if (body.header) {
    const sameName = before?.header?.name.toLowerCase() === body.header.name.toLowerCase();
    const field = { given: body.header.value, sameName, stored: stored?.secrets.headerValue };
    secrets.headerValue = keptOrNew(field, workspaceId, 'headerValue', 'body.header.value');
  }
  const settings: PostmarkSettings = {
    basicAuth: body.basicAuth ? { username: body.basicAuth.username } : null,
    header: body.header ? { name: body.header.name } : null,
  };
  const saved = await upsertFeedbackEndpoint(db, { workspaceId, provider: 'postmark', settings, secrets });
  forgetEmailSending(workspaceId);
  return saved;
}

/** Postmark's credentials in clear, for the receiver's comparison only: never logged or answered. */
export function openPostmarkCredentials(row: FeedbackEndpointRow) {
  const settings = row.settings as PostmarkSettings;
  const open = (name: string) => decryptSecret(row.secrets[name], secretContext(row.workspace_id, name));
  return {
    basicAuth: settings.basicAuth
      ? { username: settings.basicAuth.username, password: open('password') }
      : null,
    header: settings.header ? { name: settings.header.name, value: open('headerValue') } : null,
  };
}

export function feedbackUrl(config: Config, row: FeedbackEndpointRow): string {
  const base = (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
  return `${base}/api/feedback/${row.id}/${row.provider}`;
}

/** The API's view: settings, and whether each secret is set. */
export function toFeedbackEndpoint(config: Config, row: FeedbackEndpointRow) {
  const common = {
    id: row.id,
    url: feedbackUrl(config, row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.provider === 'ses')
    return { provider: 'ses' as const, ...common, topicArn: String(row.settings.topicArn) };
  if (row.provider === 'sendgrid')
    return { provider: 'sendgrid' as const, ...common, publicKey: String(row.settings.publicKey) };
  const settings = row.settings as PostmarkSettings;
  return {
    provider: 'postmark' as const,
    ...common,
    basicAuth: settings.basicAuth
      ? { username: settings.basicAuth.username, passwordSet: row.secrets.password !== undefined }
      : null,
    header: settings.header
      ? { name: settings.header.name, valueSet: row.secrets.headerValue !== undefined }
      : null,
  };
}
