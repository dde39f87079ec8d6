// The campaigns' and the reports' counter tables (sql/0060, sql/0061), a row per key and database backend, folded by the
// worker (src/db/counters.ts).
import type { CounterTable } from '../db/counters.ts';

/** What the reports count per hour (sql/0061). */
const HOURLY = [
  'sent',
  'delivered',
  'human_opens',
  'machine_opens',
  'proxy_opens',
  'human_clicks',
  'machine_clicks',
  'hard_bounces',
  'soft_bounces',
  'complaints',
  'unsubscribes',
  'conversions',
];

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
  {
    table: 'campaign_hourly_counts',
    keys: ['workspace_id', 'campaign_id', 'hour', 'previous'],
    counts: HOURLY,
  },
  { table: 'workspace_hourly_counts', keys: ['workspace_id', 'hour', 'previous'], counts: HOURLY },
  {
    table: 'link_hourly_counts',
    keys: ['workspace_id', 'campaign_id', 'hour', 'url_key', 'previous'],
    counts: ['human_clicks', 'machine_clicks'],
    carried: ['url'],
  },
];
