// What other features use of public events: the visitor identity fields of public request bodies.
export { visitorIdentityFields } from './schemas.ts';
