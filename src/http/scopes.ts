// Every scope an API key can carry. Routes declare the one they need; a key never manages API keys
// or members (those routes declare no scope and so accept sessions only). Publishable keys and the
// identity secret have scopes: a backend provisioning its pages needs them without a browser.
export const SCOPES = [
  'contacts:read',
  'contacts:write',
  'events:read',
  'events:write',
  'segments:read',
  'segments:write',
  'campaigns:read',
  'campaigns:write',
  'webhooks:read',
  'webhooks:write',
  'channels:read',
  'channels:write',
  'messages:read',
  'messages:write',
  'forms:read',
  'forms:write',
  'publishableKeys:read',
  'publishableKeys:write',
] as const;

export type Scope = (typeof SCOPES)[number];
