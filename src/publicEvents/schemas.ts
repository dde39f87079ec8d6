// Who a browser says it is, as every public endpoint that acts for a visitor takes it: anonymous,
// or a contact its site's backend vouched for with an identity token (verifyIdentity checks it).
import { AnonymousId, text } from '../contacts/index.ts';

export const visitorIdentityFields = {
  anonymousId: AnonymousId.optional(),
  email: text(320).optional().openapi({ description: 'With identityToken: the visitor is this contact.' }),
  contactId: text(100)
    .min(1)
    .optional()
    .openapi({ description: 'With identityToken: the visitor is this contact.' }),
  identityToken: text(200).optional().openapi({
    description: 'hex(HMAC-SHA256(identity secret, email or contactId)), computed by your backend.',
  }),
};
