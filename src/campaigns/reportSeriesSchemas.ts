// Shapes of a report over a period (a workspace's or a campaign's): figures per bucket and in
// total, rates, clicks per link.
import { z } from 'zod';
import '../http/openapi.ts';
import { BUCKETS, PERIODS } from './reportPeriod.ts';

export const FIGURES = [
  'sent',
  'delivered',
  'humanOpens',
  'machineOpens',
  'proxyOpens',
  'humanClicks',
  'machineClicks',
  'hardBounces',
  'softBounces',
  'complaints',
  'unsubscribes',
  'conversions',
] as const;
export type Figures = Record<(typeof FIGURES)[number], number>;

const count = (description: string) => z.number().int().min(0).openapi({ description });

const FIGURE_FIELDS = {
  sent: count('Messages the provider accepted.'),
  delivered: count(
    'Messages a provider reported delivered (email feedback, push acknowledgements, SMS receipts).',
  ),
  humanOpens: count(
    'Messages a person opened, each once ever, when its first open by a person was counted (the tracking worker settles a hit within a minute or so); push messages opened by a tap count too.',
  ),
  machineOpens: count('Pixel loads by machines: scanners, bots, prefetches, HEAD requests (each load).'),
  proxyOpens: count(
    'Pixel loads by privacy proxies (Apple Mail Privacy Protection, Gmail, Yahoo), apart from people and machines (each load).',
  ),
  humanClicks: count(
    'Messages in which a person clicked a link, each once (at its first click by a person in the period).',
  ),
  machineClicks: count(
    'Link hits by machines: security gateways, link checkers, bots, the honeypot (each hit).',
  ),
  hardBounces: count('Messages that bounced for good (refused at send, or a hard bounce reported later).'),
  softBounces: count('Messages a provider reported soft-bounced (deferred, mailbox full).'),
  complaints: count('Messages reported as spam by their recipient.'),
  unsubscribes: count('Messages whose recipient unsubscribed through them.'),
  conversions: count("Enrollments that reached their campaign's goal."),
};

export const ReportFigures = z.object(FIGURE_FIELDS).openapi('ReportFigures');

const rate = (description: string) =>
  z
    .number()
    .min(0)
    .nullable()
    .openapi({ description: `${description}, to 4 decimals; null when its divisor is 0.` });

export const PeriodReport = z
  .object({
    campaignId: z
      .string()
      .nullable()
      .openapi({ description: "The campaign reported on; null for the workspace's report." }),
    period: z.object({
      name: z.enum(PERIODS),
      bucket: z.enum(BUCKETS),
      from: z.string().openapi({ description: 'Start of the first bucket (included).' }),
      to: z
        .string()
        .openapi({ description: 'End of the last bucket (excluded): the current bucket is still filling.' }),
    }),
    totals: ReportFigures.openapi({ description: 'The sums of the series.' }),
    rates: z
      .object({
        delivery: rate('delivered / sent'),
        open: rate('humanOpens / sent'),
        click: rate('humanClicks / sent'),
        clickToOpen: rate('humanClicks / humanOpens'),
        bounce: rate('(hardBounces + softBounces) / sent'),
        complaint: rate('complaints / sent'),
        unsubscribe: rate('unsubscribes / sent'),
      })
      .openapi({
        description:
          'Over the messages sent in the period: opens in the period of messages sent before it count too, so a rate may exceed 1.',
      }),
    series: z
      .array(
        z.object({ at: z.string().openapi({ description: "The bucket's start (UTC)." }), ...FIGURE_FIELDS }),
      )
      .openapi({
        description: 'One entry per hour or day of the period, oldest first, empty ones included.',
      }),
    links: z
      .array(
        z.object({
          url: z.string(),
          humanClicks: count('Messages in which a person clicked this link, each once.'),
          machineClicks: count('Machine hits on this link.'),
        }),
      )
      .max(100)
      .openapi({
        description: 'Clicks per link in the period, most clicked by people first (at most 100 links).',
      }),
  })
  .openapi('PeriodReport');
