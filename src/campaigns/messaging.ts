// What the engine needs of the messages feature (src/messages): a send step creates its message
// in the step's transaction (unique per enrollment and step key, so a retried step finds the one it
// made) with its delivery job, then delivers it after the commit. Delivery claims the row before
// calling the provider, so a message is sent at most once whoever delivers it first.
import type { Tx } from '../db/pool.ts';
import type { AppContext } from '../http/context.ts';

export type Channel = 'email' | 'push' | 'telegram';

export type CampaignMessageInput = {
  workspaceId: string;
  contactId: string;
  channel: Channel;
  campaignId: string;
  enrollmentId: string;
  stepKey: string;
  template: Record<string, unknown>;
  triggerEventId?: string;
};

export type Messaging = {
  createMessage: (tx: Tx, input: CampaignMessageInput) => Promise<{ id: string; created: boolean }>;
  enqueueDelivery: (tx: Tx, messageId: string) => Promise<void>;
  deliverMessage: (app: AppContext, messageId: string) => Promise<unknown>;
};

/**
 * Until the messages feature is composed in, a send step records nothing and sends nothing: the
 * flow moves on past it. Composition replaces this with src/messages' functions.
 */
let messaging: Messaging | null = null;

export function useMessaging(implementation: Messaging | null): void {
  messaging = implementation;
}

export function currentMessaging(): Messaging | null {
  return messaging;
}
