// The boundary between messages and the channel modules: what deliverMessage hands a channel and
// the classified outcome it gets back. Messages decide what to do with each outcome (retry later,
// fail, bounce and suppress, unsubscribe); a channel only says what the provider answered.
import type { AppContext } from '../http/context.ts';
import type { Channel } from './queries.ts';

export type OutgoingEmail = {
  channel: 'email';
  messageId: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Message-ID, X-Switchboard-Message-Id, List-Unsubscribe, List-Unsubscribe-Post. */
  headers: Record<string, string>;
};

export type OutgoingMessage = OutgoingEmail;

export type SendOutcome =
  | { status: 'sent'; providerId: string | null; response: string | null }
  | { status: 'retry' | 'permanent' | 'bounce' | 'unsubscribe'; error: string; stage?: string };

export type ChannelSender = (
  app: AppContext,
  workspaceId: string,
  message: OutgoingMessage,
) => Promise<SendOutcome>;

const senders = new Map<Channel, ChannelSender>();

/**
 * Channel modules register their sender at start-up (the composition layer wires them), so
 * messages depend on this interface only and a channel can be added without touching them.
 */
export function registerChannelSender(channel: Channel, sender: ChannelSender): void {
  senders.set(channel, sender);
}

export async function sendThroughChannel(
  app: AppContext,
  workspaceId: string,
  message: OutgoingMessage,
): Promise<SendOutcome> {
  const sender = senders.get(message.channel);
  if (!sender) return { status: 'permanent', error: `the ${message.channel} channel is not configured` };
  return sender(app, workspaceId, message);
}
