// The web push channel behind the Channel interface.
import { findChannelConfig } from '../queries.ts';
import type { Channel, PushMessage } from '../types.ts';
import { closePushAgent } from './agent.ts';
import { sendPush } from './send.ts';

export const pushChannel: Channel<PushMessage> = {
  name: 'push',
  isConfigured: async (app, workspaceId) => (await findChannelConfig(app.db, workspaceId, 'push')) !== null,
  send: sendPush,
  // One agent serves every workspace: closing for one workspace keeps it.
  close: async (workspaceId) => (workspaceId === undefined ? closePushAgent() : undefined),
};
