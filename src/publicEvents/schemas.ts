// Who a browser says it is, as every public endpoint that acts for a visitor takes it: anonymous,
// or a contact its site's backend vouched for with an identity token (verifyIdentity checks it).
// An anonymousId in Switchboard's reserved space (`telegram:` …) is one the service assigned, which
// a page can know without being that visitor: it is refused outright.
import {
  isReservedAnonymousId,
  RESERVED_ANONYMOUS_ID_PREFIXES,
  RESERVED_ANONYMOUS_ID_RULE,
} from '../channels/index.ts';
import { AnonymousId, text } from '../contacts/index.ts';

/** A visitor id a page chose; ids Switchboard assigns itself are refused (400 naming the rule). */
const PublicAnonymousId = AnonymousId.refine(
  (value) => !isReservedAnonymousId(value),
  RESERVED_ANONYMOUS_ID_RULE,
).openapi({
  description:
    "The page's own id for an anonymous visitor. Without an identity token it reaches only an " +
    'anonymous contact: an id whose contact is now identified acts as a fresh anonymous visitor. ' +
    `Ids starting with ${RESERVED_ANONYMOUS_ID_PREFIXES.join(', ')} are Switchboard's and refused.`,
});

/** The rare 409 of unverifiedVisitorAnonymousId, documented on every route that takes the fields. */
export const ANONYMOUS_ID_UNUSABLE =
  'The anonymousId and each of its stand-ins name identified contacts (only your backend or an ' +
  'ADMIN can identify a stand-in): give the visitor a new id, or send the identity token.';

export const visitorIdentityFields = {
  anonymousId: PublicAnonymousId.optional(),
  email: text(320).optional().openapi({ description: 'With identityToken: the visitor is this contact.' }),
  contactId: text(100)
    .min(1)
    .optional()
    .openapi({ description: 'With identityToken: the visitor is this contact.' }),
  identityToken: text(200).optional().openapi({
    description: 'hex(HMAC-SHA256(identity secret, email or contactId)), computed by your backend.',
  }),
};
