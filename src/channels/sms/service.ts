// A workspace's SMS channel: the account's credentials checked against the provider before they
// are stored (a token it refuses is a 400, never stored), the auth token sealed at rest, and the
// URLs the provider calls back on.
import { timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../core/context.ts';
import { AppError, NotFoundError, ValidationError } from '../../core/errors.ts';
import type { Db } from '../../db/pool.ts';
import { ALLOW_PRIVATE_HINT, checkTargetAtSave, TargetRefusedError } from '../../net/ssrf.ts';
import { decryptSecret, encryptSecret, SecretDecryptionError } from '../../secrets/index.ts';
import { removeChannelConfig, saveChannelConfig } from '../configChanges.ts';
import { type ChannelConfigRow, findChannelConfig } from '../queries.ts';
import { channelSecretContext } from '../secretStore.ts';
import { fetchAccount, type SmsAccount, type SmsSettings } from './api.ts';

export type { SmsSettings };

import type { PutSmsConfigBody } from './schemas.ts';

export const DEFAULT_API_URL = 'https://api.twilio.com';
/** Where the provider posts (receivers.ts serves them). */
export const SMS_STATUS_PATH = '/api/feedback/sms/{workspaceId}/status';
export const SMS_INBOUND_PATH = '/api/feedback/sms/{workspaceId}/inbound';

const tokenContext = (workspaceId: string) => channelSecretContext(workspaceId, 'sms', 'authToken');

export const noSmsChannel = () =>
  new NotFoundError('The SMS channel', 'This workspace has no SMS channel configured.');

function publicBase(config: Config): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
}

export const smsUrl = (config: Config, path: string, workspaceId: string) =>
  `${publicBase(config)}${path.replace('{workspaceId}', workspaceId)}`;

/** The API must be https at a public address (SSRF), unless the deployment allows private targets. */
async function checkApiUrl(config: Config, apiUrl: string) {
  const url = new URL(apiUrl);
  if (config.ALLOW_PRIVATE_TARGETS) return;
  const refuse = (message: string) => new ValidationError([{ path: 'body.apiUrl', message }]);
  if (url.protocol !== 'https:') throw refuse(`must be an https URL (${ALLOW_PRIVATE_HINT})`);
  try {
    await checkTargetAtSave(url.hostname);
  } catch (error) {
    if (error instanceof TargetRefusedError) throw refuse(`${error.message} (${ALLOW_PRIVATE_HINT})`);
    throw error;
  }
}

/** The account the credentials name; credentials the provider refuses are the caller's mistake (400). */
async function checkAccount(app: AppContext, settings: SmsSettings, authToken: string): Promise<SmsAccount> {
  const answer = await fetchAccount(app.config, settings, authToken);
  if (answer.status === 'ok') return answer.account;
  if (answer.status === 'refused') {
    throw new ValidationError([
      {
        path: 'body.authToken',
        message: `the provider does not accept these credentials (${answer.detail})`,
      },
    ]);
  }
  throw new AppError(
    502,
    'sms-provider-failed',
    'The SMS provider failed',
    `Checking the account failed: ${answer.detail}`,
  );
}

export async function putSmsConfig(app: AppContext, workspaceId: string, body: PutSmsConfigBody) {
  const settings: SmsSettings = {
    accountSid: body.accountSid,
    from: body.from ?? null,
    messagingServiceSid: body.messagingServiceSid ?? null,
    defaultRegion: body.defaultRegion ?? null,
    apiUrl: (body.apiUrl ?? DEFAULT_API_URL).replace(/\/$/, ''),
  };
  await checkApiUrl(app.config, settings.apiUrl);
  await checkAccount(app, settings, body.authToken);
  return saveChannelConfig(app.db, {
    workspaceId,
    channel: 'sms',
    settings,
    secrets: { authToken: encryptSecret(body.authToken, tokenContext(workspaceId)) },
  });
}

export async function getSmsConfigRow(db: Db, workspaceId: string): Promise<ChannelConfigRow> {
  const row = await findChannelConfig(db, workspaceId, 'sms');
  if (!row) throw noSmsChannel();
  return row;
}

export async function deleteSmsConfig(db: Db, workspaceId: string) {
  if (!(await removeChannelConfig(db, workspaceId, 'sms'))) throw noSmsChannel();
}

/** The API's view: never the auth token. */
export function toSmsConfig(config: Config, row: ChannelConfigRow) {
  const settings = row.settings as SmsSettings;
  return {
    channel: 'sms' as const,
    ...settings,
    statusCallbackUrl: smsUrl(config, SMS_STATUS_PATH, row.workspace_id),
    inboundUrl: smsUrl(config, SMS_INBOUND_PATH, row.workspace_id),
    authTokenSet: row.secrets.authToken !== undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function openAuthToken(row: ChannelConfigRow): string {
  const sealed = row.secrets.authToken;
  if (!sealed) throw new SecretDecryptionError('no auth token is stored');
  return decryptSecret(sealed, tokenContext(row.workspace_id));
}

/** Constant-time equality of two strings of any length (their lengths alone may differ in time). */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
