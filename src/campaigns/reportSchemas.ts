// Shapes of a campaign's report and of a step preview.
import { z } from 'zod';
import { CHANNEL_NAMES, CHANNEL_REGISTRY, type CHANNEL_RENDERED } from '../channels/index.ts';
import '../http/openapi.ts';
import { Timestamp } from '../core/timestamp.ts';
import { DEFERRAL_REASONS, EXCLUSION_REASONS } from './audience.ts';
import { AUDIENCE_STALE_AFTER_MS } from './audienceStore.ts';
import { MIN_EXPECTED, SIGNIFICANCE_LEVEL } from './significance.ts';

const MessageCounts = z
  .object({
    queued: z
      .number()
      .int()
      .openapi({ description: 'Not yet answered by the provider (queued or sending).' }),
    sent: z.number().int(),
    failed: z.number().int(),
    bounced: z.number().int(),
    suppressed: z.number().int(),
    unsubscribes: z
      .number()
      .int()
      .openapi({ description: 'Messages whose recipient unsubscribed through them.' }),
    uniqueOpens: z
      .number()
      .int()
      .openapi({ description: 'Messages a person opened (each counted once; machine opens excluded).' }),
    uniqueClicks: z.number().int().openapi({
      description: 'Messages in which a person clicked a link (each counted once; machine clicks excluded).',
    }),
    clickThroughRate: z
      .number()
      .min(0)
      .openapi({ description: 'uniqueClicks / sent, to 4 decimals (0 when nothing was sent).' }),
    machineOpens: z.number().int().openapi({
      description:
        'Pixel loads by machines: scanners, bots, prefetches, HEAD requests (privacy proxies apart).',
    }),
    machineClicks: z.number().int().openapi({
      description:
        'Link hits by machines: security gateways, link checkers (Office, Outlook), bots, the honeypot, all-links sweeps.',
    }),
    proxyOpens: z
      .number()
      .int()
      .openapi({
        description:
          'Pixel loads by privacy proxies (Apple Mail Privacy Protection, Gmail, Yahoo): neither a person nor a ' +
          'scanner, as the proxy loads every pixel whether or not the mail is read; counted in neither uniqueOpens nor machineOpens.',
      }),
  })
  .openapi('CampaignMessageCounts');

export const CampaignReport = z
  .object({
    campaignId: z.string(),
    enrollments: z.object({
      enrolled: z.number().int(),
      active: z.number().int(),
      completed: z.number().int(),
      converted: z.number().int(),
      exited: z.number().int(),
    }),
    messages: MessageCounts,
    steps: z.array(
      z.object({
        stepKey: z.string(),
        type: z.enum(['send', 'wait', 'branch', 'split', 'exit']),
        channel: z.enum(CHANNEL_NAMES).optional(),
        messages: MessageCounts.optional().openapi({ description: 'Send steps.' }),
        paths: z
          .array(
            z.object({
              path: z.number().int(),
              weight: z.number().int(),
              enrolled: z.number().int(),
              converted: z
                .number()
                .int()
                .openapi({ description: "Of them, enrollments that reached the campaign's goal." }),
              conversionRate: z
                .number()
                .min(0)
                .openapi({ description: 'converted / enrolled, to 4 decimals (0 when none).' }),
              comparedToFirst: z
                .object({
                  difference: z.number().openapi({
                    description: "This path's conversion rate minus the first path's, to 4 decimals.",
                  }),
                  pValue: z.number().min(0).max(1).nullable().openapi({
                    description:
                      'The two-sided p-value of a two-proportion z-test (pooled): the chance of a difference at least this large if both paths converted alike. Null when not testable.',
                  }),
                  significant: z.boolean().openapi({ description: `pValue below ${SIGNIFICANCE_LEVEL}.` }),
                  testable: z.boolean().openapi({
                    description: `False when either path has fewer than ${MIN_EXPECTED} conversions or non-conversions expected: too few for the test.`,
                  }),
                })
                .optional()
                .openapi({ description: 'Every path but the first, compared with the first (the control).' }),
            }),
          )
          .optional()
          .openapi({
            description: 'Split steps: each path, the enrollments that drew it and their conversions.',
          }),
      }),
    ),
  })
  .openapi('CampaignReport');

export const PreviewBody = z
  .strictObject({
    contactId: z.string().min(1).max(100),
    step: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: 'The send step\'s key, e.g. "0" or "2.then.1".' }),
  })
  .openapi('CampaignPreviewRequest');

const stepKey = z.string().openapi({ description: 'The previewed step.' });

/** Each channel's rendered content with the step's key: `Campaign<title>Preview`. */
const CHANNEL_PREVIEWS = CHANNEL_REGISTRY.map((channel) =>
  channel.rendered.extend({ stepKey }).openapi(`Campaign${channel.title}Preview`),
) as unknown as typeof CHANNEL_RENDERED;

export const PreviewResult = z.discriminatedUnion('channel', CHANNEL_PREVIEWS).openapi('CampaignPreview', {
  description: "The step rendered for the contact; its fields depend on the step's channel.",
});

const AudienceMember = z
  .object({ id: z.string(), email: z.string().nullable() })
  .openapi({ description: 'A contact of the sample.' });

const AudienceGroup = {
  count: z.number().int().min(0),
  sample: z.array(AudienceMember).max(5).openapi({ description: 'Up to 5 of them.' }),
};

const AudienceFigures = z.object({
  campaignId: z.string(),
  segmentId: z.string(),
  channel: z.enum(CHANNEL_NAMES).openapi({ description: "The channel of the campaign's first send step." }),
  at: z.string().openapi({ description: 'The send time the audience is computed for: sendAt, or now.' }),
  members: z.number().int().min(0).openapi({ description: "The segment's members now." }),
  reached: z.number().int().min(0).openapi({
    description:
      'Members the first send step will be sent to: members minus every excluded one (deferred ones included).',
  }),
  deferredTotal: z
    .number()
    .int()
    .min(0)
    .openapi({ description: 'Of the reached, those the pacing sends later (each counted once).' }),
  excluded: z
    .array(
      z.object({
        reason: z.enum(EXCLUSION_REASONS),
        description: z.string().nullable().openapi({
          description:
            "The suppression their messages would record (e.g. 'the contact has no email address').",
        }),
        ...AudienceGroup,
      }),
    )
    .openapi({
      description:
        'Members who will not get it, by the first reason delivery finds, in its order: no address on the ' +
        'channel, hard bounce, complaint, repeated soft bounces, unsubscribed from everything, from the channel. ' +
        'Every reason is listed, with 0 when none applies.',
    }),
  deferred: z.array(z.object({ reason: z.enum(DEFERRAL_REASONS), ...AudienceGroup })).openapi({
    description:
      'Reached members held back at the send time (deferred, not dropped): over the frequency cap, or in ' +
      'the quiet hours of their time zone. A member held by both counts under each.',
  }),
});

const countingSince = Timestamp.openapi({
  description:
    'When the count under way was asked for (it ends in seconds; at a million members, in about ten).',
});

export const CampaignAudience = AudienceFigures.extend({
  countedAt: Timestamp.openapi({
    description:
      'When these figures were counted: now for an audience of up to CAMPAIGN_AUDIENCE_LIVE_LIMIT members ' +
      '(5,000 by default), else the last count, kept and taken again in the background.',
  }),
  stale: z.boolean().openapi({
    description:
      "True when the campaign's segment, send time or channel, the segment's rules or the pacing changed " +
      `since countedAt, or the figures are older than ${AUDIENCE_STALE_AFTER_MS / 60_000} minutes: a new count is then under way.`,
  }),
  countingSince: countingSince.nullable().openapi({
    description: 'When a count under way was asked for; null when none is. GET this again once it ends.',
  }),
}).openapi('CampaignAudience');

export const AudienceCounting = z
  .object({
    campaignId: z.string(),
    segmentId: z.string(),
    members: z.number().int().min(0).openapi({ description: "The segment's members now, being counted." }),
    countingSince,
  })
  .openapi('CampaignAudienceCounting', {
    description:
      'A count of the audience is under way and none has ended yet: GET …/audience again after Retry-After seconds.',
  });
