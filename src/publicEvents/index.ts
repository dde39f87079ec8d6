// What other features use of public events: the visitor identity fields of public request bodies.
export { ANONYMOUS_ID_UNUSABLE, visitorIdentityFields } from './schemas.ts';
