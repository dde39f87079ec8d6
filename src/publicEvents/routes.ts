// POST /api/public/events: what a page reports about its visitor (page views and the other types
// its publishable key allows), through the same ingest pipeline as the API: segments, campaign
// triggers and scores move before the answer. The visitor is anonymous (`anonymousId`) unless the
// page carries an identity token from the customer's backend; a bare anonymousId reaches only an
// anonymous contact (unverifiedVisitorAnonymousId), never a known person's.
import { z } from 'zod';
import { JsonObject, text, unverifiedVisitorAnonymousId } from '../contacts/index.ts';
import { ForbiddenError } from '../core/errors.ts';
import type { Tx } from '../db/pool.ts';
import { ingestEvents, trackingFields } from '../events/index.ts';
import { Timestamp } from '../http/validation.ts';
import { type Identity, type PublicCaller, publicRoute, verifyIdentity } from '../publicKeys/index.ts';
import { ANONYMOUS_ID_UNUSABLE, visitorIdentityFields } from './schemas.ts';

const PublicEventBody = z
  .strictObject({
    type: text(200)
      .transform((value) => value.trim())
      .pipe(z.string().min(1, 'is required'))
      .openapi({
        type: 'string',
        description: 'One of the event types the publishable key allows.',
        example: 'page_view',
      }),
    ...visitorIdentityFields,
    metadata: JsonObject.optional(),
    ...trackingFields,
  })
  .openapi('PublicEventRequest', {
    example: {
      type: 'page_view',
      anonymousId: 'a7c1e2d0',
      pageUrl: 'https://www.example.com/pricing',
      utmSource: 'newsletter',
    },
  });

const PublicEventAccepted = z
  .object({ id: z.string(), type: z.string(), timestamp: Timestamp })
  .openapi('PublicEventAccepted', {
    description: 'The stored event; contact details are not sent to the page.',
  });

function checkType(caller: PublicCaller, type: string): void {
  if (!caller.allowedEventTypes.includes(type)) {
    throw new ForbiddenError(
      `This publishable key may not send "${type}" events; an ADMIN can add it to the key's allowedEventTypes.`,
      'event-type-not-allowed',
    );
  }
}

/** Who the event is about: the vouched-for contact, or the anonymous visitor the id may reach. */
async function who(tx: Tx, workspaceId: string, identity: Identity, anonymousId: string | undefined) {
  if (identity.kind === 'identified')
    return identity.email !== undefined ? { email: identity.email } : { contactId: identity.contactId };
  if (anonymousId === undefined) return {};
  return { anonymousId: await unverifiedVisitorAnonymousId(tx, workspaceId, anonymousId) };
}

export const publicEventRoutes = [
  publicRoute({
    method: 'post',
    path: '/api/public/events',
    operationId: 'public.events.create',
    summary: 'Track an event from a web page (publishable key)',
    tags: ['Public'],
    body: PublicEventBody,
    responses: { 201: { description: 'Stored, with every side effect', schema: PublicEventAccepted } },
    errors: {
      404: 'The contactId (verified by its identity token) does not exist in the workspace.',
      409: ANONYMOUS_ID_UNUSABLE,
    },
    handler: async ({ app, caller, body }) => {
      checkType(caller, body.type);
      const identity = await verifyIdentity(app.db, caller.workspaceId, body);
      const { anonymousId, email: _email, contactId: _contactId, identityToken: _token, ...rest } = body;
      const [result] = await app.db.transaction(async (tx) => {
        const visitor = await who(tx, caller.workspaceId, identity, anonymousId);
        return ingestEvents(tx, app.effects.contacts, caller.workspaceId, [{ ...rest, ...visitor }], {
          source: 'api',
        });
      });
      const { id, type, timestamp } = result.event;
      return { status: 201, body: { id, type, timestamp } };
    },
  }),
];
