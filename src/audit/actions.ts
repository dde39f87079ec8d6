// Every action the audit log records, by the kind of thing it changes. One list, so the API can
// document them, a filter can be checked against them and a misspelt action is a compile error.
export const AUDIT_ACTIONS = {
  apiKey: ['created', 'revoked'],
  publishableKey: ['created', 'updated', 'revoked'],
  identitySecret: ['rotated'],
  member: ['invited', 'joined', 'roleChanged', 'removed', 'left'],
  invitation: ['revoked'],
  workspace: ['renamed'],
  channel: ['configured', 'updated', 'removed', 'testSent'],
  webhook: ['created', 'updated', 'secretRotated', 'deleted', 'disabled', 'deliveryRetried'],
  segment: ['created', 'updated', 'deleted'],
  scoringRule: ['created', 'updated', 'deleted'],
  scoringSettings: ['updated'],
  campaign: ['created', 'updated', 'activated', 'paused', 'resumed', 'archived', 'deleted', 'testSent'],
  form: ['created', 'updated', 'deleted'],
  trackingSettings: ['updated'],
  campaignPacing: ['updated'],
} as const;

type Actions = typeof AUDIT_ACTIONS;
export type AuditTargetType = keyof Actions;
export type AuditAction = { [T in AuditTargetType]: `${T}.${Actions[T][number]}` }[AuditTargetType];

export const AUDIT_ACTION_NAMES: readonly AuditAction[] = Object.entries(AUDIT_ACTIONS).flatMap(
  ([type, verbs]) => verbs.map((verb) => `${type}.${verb}` as AuditAction),
);
