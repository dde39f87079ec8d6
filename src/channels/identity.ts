// Anonymous ids the service assigns itself, and who counts as identified. Switchboard mints
// anonymousIds for visitors it learns about on its own (an unlinked Telegram chat is
// `telegram:<chatId>`, and a private chat's id is the Telegram user's id, easy to learn), so those
// ids are no secret and a page must never be able to act under them: every id in the reserved
// space `<prefix>:` below is refused from public callers. `sb:` is Switchboard's own, and each
// channel name is reserved whether or not the channel mints ids yet, so a future channel cannot
// collide with ids customers already use. The list lives here, in the lowest feature, because
// every layer that mints or checks such ids sits above it.
import { CHANNEL_NAMES } from './registry.ts';

export const RESERVED_ANONYMOUS_ID_PREFIXES: readonly string[] = ['sb', ...CHANNEL_NAMES].map(
  (name) => `${name}:`,
);

/** Matched without regard to case or leading blanks, so `Telegram:1` and ` telegram:1` are refused too. */
export function isReservedAnonymousId(anonymousId: string): boolean {
  const head = anonymousId.trimStart().toLowerCase();
  return RESERVED_ANONYMOUS_ID_PREFIXES.some((prefix) => head.startsWith(prefix));
}

export const RESERVED_ANONYMOUS_ID_RULE =
  `must not start with ${RESERVED_ANONYMOUS_ID_PREFIXES.map((p) => `"${p}"`).join(', ')}: ` +
  'Switchboard assigns those ids itself; give the visitor an id of your own (a random one per browser)';

/** The anonymous contact of a Telegram chat no contact is linked to yet. */
export const telegramAnonymousId = (chatId: number) => `telegram:${chatId}`;

/**
 * The id a public, unverified visitor acts under when `anonymousId` (and the stand-ins before this
 * one) belong to an identified contact: a fresh anonymous visitor of its own, the same one on
 * every request, so a repeat still finds its browser. Numbered from 1 (`sb:unverified:1:…`), so no
 * stand-in can equal another id's.
 */
export const unverifiedStandIn = (anonymousId: string, generation: number) =>
  `sb:unverified:${generation}:${anonymousId}`;
