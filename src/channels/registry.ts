// THE list of channels. Everything that varies by channel (delivery, campaign steps and their
// previews, reports, subscriptions, pacing, webhook event types, the OpenAPI enums) iterates it: a
// new channel is its folder under src/channels/ and one line here (docs/architecture/recipes.md).
import { z } from 'zod';
import { emailChannel } from './email/channel.ts';
import { pushChannel } from './push/channel.ts';
import { smsChannel } from './sms/channel.ts';
import { telegramChannel } from './telegram/channel.ts';
import type { ChannelDefinition } from './types.ts';

/** In the order the API documents them. */
export const CHANNEL_REGISTRY = [emailChannel, pushChannel, telegramChannel, smsChannel] as const;

type Registry = typeof CHANNEL_REGISTRY;
/** The tuple of one field of each channel (a homomorphic mapping keeps it a tuple). */
type Each<T extends readonly unknown[], F extends string> = {
  readonly [K in keyof T]: T[K] extends { readonly [P in F]: infer V } ? V : never;
};
type Registered = Registry[number];
export type ChannelName = Registered['name'];
/** One variant per channel: what its `send` takes. */
export type OutgoingMessage = Parameters<Registered['send']>[2];

/** The names, as a tuple (z.enum takes it). */
export const CHANNEL_NAMES = CHANNEL_REGISTRY.map((channel) => channel.name) as unknown as Each<
  Registry,
  'name'
>;

const byName = new Map<string, ChannelDefinition>(CHANNEL_REGISTRY.map((channel) => [channel.name, channel]));

export function isChannelName(name: string): name is ChannelName {
  return byName.has(name);
}

/** The channel called `name`; a name the registry does not hold is a programming error (rows are checked). */
export function channelNamed(name: string): ChannelDefinition {
  const channel = byName.get(name);
  if (!channel) throw new Error(`no channel ${JSON.stringify(name)} in the registry`);
  return channel;
}

/** Each channel's campaign send step, for the step union. */
export const CHANNEL_STEPS = CHANNEL_REGISTRY.map((channel) => channel.step) as unknown as Each<
  Registry,
  'step'
>;

/** Each channel's rendered content, for the union messages keep and show. */
export const CHANNEL_RENDERED = CHANNEL_REGISTRY.map((channel) => channel.rendered) as unknown as Each<
  Registry,
  'rendered'
>;

/** What a send rendered, on any channel (the message row's `rendered`). */
export const RenderedContent = z.discriminatedUnion('channel', CHANNEL_RENDERED);
export type RenderedContent = z.output<typeof RenderedContent>;

/** Messages per second per workspace where the workspace sets none, by channel (those with a default). */
export const CHANNEL_RATE_DEFAULTS: Readonly<Record<string, number>> = Object.fromEntries(
  CHANNEL_REGISTRY.flatMap((channel: ChannelDefinition) =>
    channel.defaultRatePerSecond === undefined ? [] : [[channel.name, channel.defaultRatePerSecond]],
  ),
);

/** Every channel's opt-out webhook event (`unsubscribe.<channel>`) and what its `data` carries. */
export const CHANNEL_EVENTS = CHANNEL_REGISTRY.map((channel: ChannelDefinition) => ({
  type: `unsubscribe.${channel.name}` as const,
  data: channel.unsubscribeEvent,
}));
