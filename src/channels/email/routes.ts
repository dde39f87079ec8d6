import { access, defineRoute } from '../../http/route.ts';
import { WorkspaceParams } from '../../http/validation.ts';
import { removeChannelConfig } from '../configChanges.ts';
import { EmailConfigSchema, PutEmailConfigBody, TestEmailBody, TestEmailResult } from './schemas.ts';
import { forgetEmailSending } from './send.ts';
import { getEmailConfigRow, noEmailChannel, putEmailConfig, toEmailConfig } from './service.ts';
import { sendTestEmail } from './testMessage.ts';
import { closeTransport } from './transport.ts';

const tags = ['Channels'];
const path = '/api/workspaces/{workspaceId}/channels/email';
const read = access.workspace('channels:read');
const write = access.workspace('channels:write', { admin: true });

export const emailChannelRoutes = [
  defineRoute({
    method: 'get',
    path,
    operationId: 'channels.email.get',
    summary: "Get the workspace's email channel (secrets are never returned, only whether they are set)",
    tags,
    access: read,
    params: WorkspaceParams,
    responses: { 200: { description: 'The email channel', schema: EmailConfigSchema } },
    errors: { 404: 'The workspace does not exist here, or it has no email channel.' },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: toEmailConfig(await getEmailConfigRow(app.db, workspaceId)),
    }),
  }),
  defineRoute({
    method: 'put',
    path,
    operationId: 'channels.email.put',
    summary: 'Configure the email channel (SMTP server, sender, DKIM)',
    description:
      'Replaces the configuration. The password and the DKIM private key are stored encrypted ' +
      '(AES-256-GCM under ENCRYPTION_KEY). A left-out `password` keeps the stored one while host and ' +
      'username are unchanged; a left-out `dkim.privateKey` keeps the stored key while domain and ' +
      'selector are unchanged. The host may not be, or resolve to, a private or loopback address unless ' +
      'the operator lists it in SMTP_ALLOWED_HOSTS or (development only) sets ALLOW_PRIVATE_TARGETS=true.',
    tags,
    access: write,
    params: WorkspaceParams,
    body: PutEmailConfigBody,
    responses: { 200: { description: 'The email channel as stored', schema: EmailConfigSchema } },
    errors: {
      400: 'The request is invalid (problem+json lists each field): e.g. both smtpUrl and host, a private host address, a DKIM domain without a key.',
    },
    handler: async ({ app, workspaceId, body }) => {
      const stored = await putEmailConfig(app.db, app.config, workspaceId, body);
      forgetEmailSending(workspaceId);
      return { status: 200, body: toEmailConfig(stored) };
    },
  }),
  defineRoute({
    method: 'delete',
    path,
    operationId: 'channels.email.delete',
    summary: 'Remove the email channel and its stored secrets',
    tags,
    access: write,
    params: WorkspaceParams,
    responses: { 204: { description: 'Removed; pooled SMTP connections are closed' } },
    errors: { 404: 'The workspace does not exist here, or it has no email channel.' },
    handler: async ({ app, workspaceId }) => {
      if (!(await removeChannelConfig(app.db, workspaceId, 'email'))) throw noEmailChannel();
      forgetEmailSending(workspaceId);
      await closeTransport(workspaceId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${path}/test`,
    operationId: 'channels.email.test',
    summary: 'Send a real test message and answer with the SMTP server’s reply',
    tags,
    access: write,
    params: WorkspaceParams,
    body: TestEmailBody,
    responses: { 200: { description: 'Accepted by the SMTP server: its reply', schema: TestEmailResult } },
    errors: {
      404: 'The workspace does not exist here, or it has no email channel.',
      409: 'The stored secrets cannot be decrypted with the configured ENCRYPTION_KEY (PUT the configuration again).',
      422: 'The SMTP host was not dialled: it resolves to a private address, or does not resolve (`stage: connect`).',
      502: 'The SMTP exchange failed; `stage` names where (connect, tls, auth, mail-from, rcpt-to, data), `responseCode` the server’s code, and `detail` its reply.',
    },
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: await sendTestEmail(app, workspaceId, body.to),
    }),
  }),
];
