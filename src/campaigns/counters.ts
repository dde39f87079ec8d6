// The campaigns' counter tables (sql/0060), a row per key and database backend, folded by the
// worker (src/db/counters.ts).
import type { CounterTable } from '../db/counters.ts';

export const campaignCounters: readonly CounterTable[] = [
  {
    table: 'campaign_step_counts',
    keys: ['workspace_id', 'campaign_id', 'step_key'],
    counts: [
      'queued',
      'sent',
      'failed',
      'bounced',
      'suppressed',
      'delivered',
      'unsubscribes',
      'unique_opens',
      'unique_clicks',
      'machine_opens',
      'machine_clicks',
      'proxy_opens',
    ],
  },
  {
    table: 'campaign_daily_counts',
    keys: ['workspace_id', 'campaign_id', 'day'],
    counts: ['sent', 'opens', 'clicks'],
  },
  {
    table: 'campaign_enrollment_counts',
    keys: ['workspace_id', 'campaign_id', 'step_key'],
    counts: ['enrolled', 'active', 'completed', 'converted', 'exited'],
  },
];
