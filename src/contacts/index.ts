// What other features may use of contacts: services, queries and types. Never routes, jobs or
// commands (feature.ts holds those, for the composition layer alone).
export {
  type FoundContact,
  type FoundContactKeys,
  findAndLockContacts,
  findContactsUnlocked,
  type Identifiers,
  insertContactsSkippingTaken,
  lockContactsById,
  type NewContact,
} from './bulkQueries.ts';
export type { SegmentChoice } from './consoleList.ts';
export type { ContactPanel, ContactView } from './consolePanels.ts';
export { type ChangeScope, type ContactEffects, contactsChanged } from './effects.ts';
export { identifyWithEmail } from './identify.ts';
export { mergeContactRows } from './merge.ts';
export { contactEventData } from './present.ts';
export { type ContactRow, findContact, findContactByEmail, segmentExists } from './queries.ts';
export {
  AnonymousId,
  ContactId,
  ContactPage,
  ContactParams,
  ContactSummarySchema,
  Email,
  JsonObject,
  Name,
  Phone,
  text,
} from './schemas.ts';
export { searchContacts } from './searchQueries.ts';
export { createContact, getContact, listContactPage, patchContact } from './service.ts';
export { unverifiedVisitorAnonymousId } from './unverifiedVisitor.ts';
