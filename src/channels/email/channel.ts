// The email channel behind the Channel interface.

import { findChannelConfig } from '../queries.ts';
import type { Channel, EmailMessage } from '../types.ts';
import { sendEmail } from './send.ts';
import { closeTransport } from './transport.ts';

export const emailChannel: Channel<EmailMessage> = {
  name: 'email',
  isConfigured: async (app, workspaceId) => (await findChannelConfig(app.db, workspaceId, 'email')) !== null,
  send: sendEmail,
  close: closeTransport,
};
