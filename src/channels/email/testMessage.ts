// POST …/channels/email/test: one real message through the workspace's transport, answered with
// the SMTP server's reply, or with a problem naming the stage that failed.

import { recordAudit } from '../../audit/index.ts';
import type { AppContext } from '../../core/context.ts';
import { AppError } from '../../core/errors.ts';
import { ulid } from '../../db/ids.ts';
import { classifySmtpError, type Delivered, deliverEmail, STAGE_LABELS } from './send.ts';
import { noEmailChannel } from './service.ts';
import { SMTP_PRIVATE_HINT } from './target.ts';

function problemFor(error: unknown): AppError {
  const failure = classifySmtpError(error);
  const extra = {
    stage: failure.stage,
    ...(failure.responseCode ? { responseCode: failure.responseCode } : {}),
  };
  if (failure.stage === 'config') {
    return new AppError(
      409,
      'channel-secrets-unreadable',
      'Channel secrets unreadable',
      'The stored SMTP secrets cannot be decrypted with the configured ENCRYPTION_KEY: PUT the configuration again.',
      { extra },
    );
  }
  if (failure.refused) {
    return new AppError(
      422,
      'smtp-target-refused',
      'SMTP host refused',
      `The SMTP host was not dialled (${failure.error}): ${SMTP_PRIVATE_HINT}.`,
      { extra },
    );
  }
  return new AppError(
    502,
    'smtp-failed',
    'SMTP failed',
    `The SMTP exchange failed at ${STAGE_LABELS[failure.stage]}: ${failure.error}`,
    { extra },
  );
}

export async function sendTestEmail(app: AppContext, workspaceId: string, to: string): Promise<Delivered> {
  let delivered: Delivered | null;
  try {
    delivered = await deliverEmail(app, workspaceId, {
      channel: 'email',
      id: `test_${ulid()}`,
      to,
      subject: 'Switchboard test message',
      text: 'This is a test message from Switchboard: your email channel works.',
      html: '<p>This is a test message from Switchboard: your email channel works.</p>',
    });
  } catch (error) {
    throw problemFor(error);
  }
  if (!delivered) throw noEmailChannel();
  // Recorded once sent: a test message is no change to roll back, but who mailed whom is worth knowing.
  const after = { to };
  await app.db.transaction((tx) =>
    recordAudit(tx, { workspaceId, action: 'channel.testSent', targetId: 'email', after }),
  );
  return delivered;
}
