// A campaign's report: its enrollments by status, its messages by status per step (by step key)
// and in total, with unsubscribes (messages whose timeline holds one), and each split's paths with
// the enrollments that drew them. The enrollment and message counts are sums of the counters the
// database keeps as they change (sql/0060), whatever the campaign's size; the paths are counted
// from the enrollments that drew one.
// Engagement counts people: a message opened or clicked by a person counts once however often it
// was (unique human opens and clicks, settled by the worker); machine hits (scanners, proxies,
// prefetches) are counted beside them, never in them, and privacy-proxy opens (Apple Mail Privacy
// Protection, Gmail's and Yahoo's image proxies) apart from both: a proxy loads every pixel whether
// or not anyone reads the mail, yet a person may have. Click-through rate is unique human clicks
// over messages sent.
import { z } from 'zod';
import { type Db, sql } from '../db/pool.ts';
import { allSteps } from './flow.ts';
import { requireCampaign } from './service.ts';
import { compareProportions } from './significance.ts';

const MESSAGE_COUNTS = [
  'queued',
  'sent',
  'failed',
  'bounced',
  'suppressed',
  'unsubscribes',
  'uniqueOpens',
  'uniqueClicks',
  'machineOpens',
  'machineClicks',
  'proxyOpens',
] as const;
type MessageCounts = Record<(typeof MESSAGE_COUNTS)[number], number>;

const EnrollmentCounts = z.object({
  enrolled: z.number(),
  active: z.number(),
  completed: z.number(),
  converted: z.number(),
  exited: z.number(),
});

const StepCounts = z.object({
  step_key: z.string().nullable(),
  queued: z.number(),
  sent: z.number(),
  failed: z.number(),
  bounced: z.number(),
  suppressed: z.number(),
  unsubscribes: z.number(),
  uniqueOpens: z.number(),
  uniqueClicks: z.number(),
  machineOpens: z.number(),
  machineClicks: z.number(),
  proxyOpens: z.number(),
});

const PathCount = z.object({
  step_key: z.string(),
  path: z.number(),
  enrolled: z.number(),
  converted: z.number(),
});

/** From the counters kept as enrollments change (sql/0060), one row per step and writer. */
async function enrollmentCounts(db: Db, workspaceId: string, campaignId: string) {
  return db.one(sql.type(EnrollmentCounts)`
    select coalesce(sum(enrolled), 0)::int as enrolled, coalesce(sum(active), 0)::int as active,
      coalesce(sum(completed), 0)::int as completed, coalesce(sum(converted), 0)::int as converted,
      coalesce(sum(exited), 0)::int as exited
    from campaign_enrollment_counts where workspace_id = ${workspaceId} and campaign_id = ${campaignId}
  `);
}

/**
 * Per step key (null: messages without a step); `sending` counts as queued (not yet answered).
 * Read from the counters the database keeps as messages, their timeline and their hits change
 * (sql/0060 says what each counts), one row per writer: the sum is exact in the snapshot.
 */
async function messageCounts(db: Db, workspaceId: string, campaignId: string) {
  return db.any(sql.type(StepCounts)`
    select nullif(step_key, '') as step_key,
      sum(queued)::int as queued, sum(sent)::int as sent, sum(failed)::int as failed,
      sum(bounced)::int as bounced, sum(suppressed)::int as suppressed, sum(unsubscribes)::int as unsubscribes,
      sum(unique_opens)::int as "uniqueOpens", sum(unique_clicks)::int as "uniqueClicks",
      sum(machine_opens)::int as "machineOpens", sum(machine_clicks)::int as "machineClicks",
      sum(proxy_opens)::int as "proxyOpens"
    from campaign_step_counts where workspace_id = ${workspaceId} and campaign_id = ${campaignId}
    group by step_key
  `);
}

async function pathCounts(db: Db, workspaceId: string, campaignId: string) {
  return db.any(sql.type(PathCount)`
    select c.key as step_key, c.value::int as path, count(*)::int as enrolled,
      count(*) filter (where e.status = 'converted')::int as converted
    from enrollments e, jsonb_each_text(e.cohorts) c
    where e.workspace_id = ${workspaceId} and e.campaign_id = ${campaignId} and e.cohorts <> '{}'
    group by c.key, c.value
  `);
}

const zero = (): MessageCounts =>
  Object.fromEntries(MESSAGE_COUNTS.map((name) => [name, 0])) as MessageCounts;

/** The counts with their click-through rate (unique human clicks per message sent, 4 decimals). */
function withRate(counts: MessageCounts) {
  const rate = counts.sent === 0 ? 0 : Math.round((counts.uniqueClicks / counts.sent) * 10_000) / 10_000;
  return { ...counts, clickThroughRate: rate };
}

function add(into: MessageCounts, row: MessageCounts) {
  for (const name of MESSAGE_COUNTS) into[name] += row[name];
}

export async function campaignReport(db: Db, workspaceId: string, campaignId: string) {
  const campaign = await requireCampaign(db, workspaceId, campaignId);
  const all = allSteps(campaign.steps);
  // Without a split step there are no paths to count. Once any campaign of the workspace has drawn
  // paths, the planner guesses the rows with paths of ANY campaign at thousands and reads the
  // partial index in parallel, which costs more than the rest of the report (bench:console).
  const hasSplit = all.some(({ step }) => step.type === 'split');
  const [enrollments, perStep, paths] = await Promise.all([
    enrollmentCounts(db, workspaceId, campaignId),
    messageCounts(db, workspaceId, campaignId),
    hasSplit ? pathCounts(db, workspaceId, campaignId) : [],
  ]);
  const byKey = new Map(perStep.map((row) => [row.step_key, row]));
  const total = zero();
  for (const row of perStep) add(total, row);
  const steps = all.map(({ key, step }) => {
    const counts = byKey.get(key);
    const report: Record<string, unknown> = { stepKey: key, type: step.type };
    if (step.type === 'send') {
      report.channel = step.channel;
      report.messages = withRate({ ...zero(), ...(counts ? pick(counts) : {}) });
    }
    if (step.type === 'split') report.paths = splitPaths(key, step.paths, paths);
    return report;
  });
  return { campaignId, enrollments, messages: withRate(total), steps };
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Each path's conversion rate, and every path after the first compared with the first (the
 * control): the difference in conversion rate and whether it is more than chance (significance.ts).
 */
export type SplitPath = {
  path: number;
  weight: number;
  enrolled: number;
  converted: number;
  conversionRate: number;
  comparedToFirst?: { difference: number; pValue: number | null; significant: boolean; testable: boolean };
};

function splitPaths(
  key: string,
  definition: readonly { weight: number }[],
  counted: readonly z.output<typeof PathCount>[],
): SplitPath[] {
  const paths = definition.map((path, index) => {
    const row = counted.find((row) => row.step_key === key && row.path === index);
    return { path: index, weight: path.weight, enrolled: row?.enrolled ?? 0, converted: row?.converted ?? 0 };
  });
  const [first] = paths;
  return paths.map((path) => {
    const conversionRate = path.enrolled === 0 ? 0 : round(path.converted / path.enrolled, 4);
    if (path === first) return { ...path, conversionRate };
    const test = compareProportions(
      { converted: first.converted, total: first.enrolled },
      { converted: path.converted, total: path.enrolled },
    );
    return {
      ...path,
      conversionRate,
      comparedToFirst: {
        difference: round(test.difference, 4),
        pValue: test.pValue === null ? null : round(test.pValue, 6),
        significant: test.significant,
        testable: test.testable,
      },
    };
  });
}

/**
 * The split steps' paths alone (as in the report), for the report pages: one statement over the
 * campaign's enrollments, without the report's per-message counts.
 */
export async function campaignSplits(db: Db, workspaceId: string, campaignId: string) {
  const campaign = await requireCampaign(db, workspaceId, campaignId);
  const splits = allSteps(campaign.steps).flatMap(({ key, step }) =>
    step.type === 'split' ? [{ key, paths: step.paths }] : [],
  );
  // Without a split step there is nothing to count (and no enrollment to read).
  if (splits.length === 0) return [];
  const counted = await pathCounts(db, workspaceId, campaignId);
  return splits.map(({ key, paths }) => ({ stepKey: key, paths: splitPaths(key, paths, counted) }));
}

function pick(row: MessageCounts): MessageCounts {
  return Object.fromEntries(MESSAGE_COUNTS.map((name) => [name, row[name]])) as MessageCounts;
}
