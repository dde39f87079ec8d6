// What other features may use of events: services, queries and types. Never routes, jobs or
// commands (feature.ts holds those, for the composition layer alone).
export { ingestEvents } from './ingest.ts';
export { IngestEventBody, trackingFields } from './schemas.ts';
