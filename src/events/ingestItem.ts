// One event as ingest receives it, from the API, a batch or an inbound webhook (ingest.ts).
/** Where a tracked event came from (the browser's page and campaign tags). */
export type TrackingFields = {
  sessionId?: string;
  pageUrl?: string;
  referrer?: string;
  utmSource?: string;
  utmMedium?: string;
  utmCampaign?: string;
};

export type IngestItem = {
  type: string;
  contactId?: string;
  email?: string;
  anonymousId?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  metadata?: Record<string, unknown>;
  timestamp?: string;
  idempotencyKey?: string;
} & TrackingFields;
