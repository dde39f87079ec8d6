// Provider feedback offers nothing to other features: it receives bounces, complaints and
// deliveries from email providers and applies them through messages (see receive.ts).
export type { FeedbackKind } from './events.ts';
