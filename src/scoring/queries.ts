// Scoring rules, score history and scoring settings.
import { z } from 'zod';
import { selectPage } from '../db/paginate.ts';
import { type Db, sql } from '../db/pool.ts';
import type { MetadataCondition } from '../segments/index.ts';

export const ScoringRuleRow = z.object({
  id: z.string(),
  name: z.string(),
  event_type: z.string(),
  points: z.number().int(),
  where: z.custom<MetadataCondition[]>().nullable(),
  repeatable: z.boolean(),
  cooldown: z.string().nullable(),
  active: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ScoringRuleRow = z.infer<typeof ScoringRuleRow>;

export type ScoringRuleFields = {
  name: string;
  eventType: string;
  points: number;
  where: MetadataCondition[] | null;
  repeatable: boolean;
  cooldown: string | null;
  cooldownSeconds: number | null;
  active: boolean;
};

const ruleColumns = sql.fragment`id, name, event_type, points, "where", repeatable, cooldown, active, created_at, updated_at`;

export async function listScoringRules(db: Db, workspaceId: string, page: { limit: number; offset: number }) {
  const from = sql.fragment`scoring_rules`;
  const where = sql.fragment`workspace_id = ${workspaceId}`;
  return selectPage(
    db,
    ScoringRuleRow,
    { columns: ruleColumns, from, where, orderBy: sql.fragment`created_at, id` },
    page,
  );
}

export async function findScoringRule(db: Db, workspaceId: string, ruleId: string, lock = false) {
  return db.maybeOne(sql.type(ScoringRuleRow)`
    select ${ruleColumns} from scoring_rules where workspace_id = ${workspaceId} and id = ${ruleId}
    ${lock ? sql.fragment`for update` : sql.fragment``}
  `);
}

export async function insertScoringRule(db: Db, workspaceId: string, id: string, f: ScoringRuleFields) {
  return db.one(sql.type(ScoringRuleRow)`
    insert into scoring_rules (workspace_id, id, name, event_type, points, "where", repeatable, cooldown,
      cooldown_seconds, active)
    values (${workspaceId}, ${id}, ${f.name}, ${f.eventType}, ${f.points}, ${f.where ? sql.jsonb(f.where) : null},
      ${f.repeatable}, ${f.cooldown}, ${f.cooldownSeconds}, ${f.active})
    returning ${ruleColumns}
  `);
}

export async function updateScoringRule(db: Db, workspaceId: string, id: string, f: ScoringRuleFields) {
  return db.one(sql.type(ScoringRuleRow)`
    update scoring_rules set name = ${f.name}, event_type = ${f.eventType}, points = ${f.points},
      "where" = ${f.where ? sql.jsonb(f.where) : null}, repeatable = ${f.repeatable}, cooldown = ${f.cooldown},
      cooldown_seconds = ${f.cooldownSeconds}, active = ${f.active}, updated_at = now()
    where workspace_id = ${workspaceId} and id = ${id}
    returning ${ruleColumns}
  `);
}

export async function deleteScoringRule(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const result = await db.query(sql.typeAlias('void')`
    delete from scoring_rules where workspace_id = ${workspaceId} and id = ${id}
  `);
  return result.rowCount > 0;
}

export const ScoreChangeRow = z.object({
  id: z.string(),
  rule_id: z.string().nullable(),
  event_id: z.string().nullable(),
  reason: z.enum(['rule', 'decay', 'merge']),
  previous_score: z.number().int(),
  score: z.number().int(),
  created_at: z.string(),
});

export async function listScoreChanges(
  db: Db,
  workspaceId: string,
  contactId: string,
  page: { limit: number; offset: number },
) {
  return selectPage(
    db,
    ScoreChangeRow,
    {
      columns: sql.fragment`id, rule_id, event_id, reason, previous_score, score, created_at`,
      from: sql.fragment`score_changes`,
      where: sql.fragment`workspace_id = ${workspaceId} and contact_id = ${contactId}`,
      orderBy: sql.fragment`created_at desc, id desc`,
    },
    page,
  );
}

export const SettingsRow = z.object({
  decay_points: z.number().int().nullable(),
  decay_every: z.string().nullable(),
  last_decay_at: z.string().nullable(),
});
export type SettingsRow = z.infer<typeof SettingsRow>;

export async function findScoringSettings(db: Db, workspaceId: string) {
  return db.maybeOne(sql.type(SettingsRow)`
    select decay_points, decay_every, last_decay_at from scoring_settings where workspace_id = ${workspaceId}
  `);
}

/** Decay counts from the moment it is configured: a new setting starts a fresh period. */
export async function upsertScoringSettings(
  db: Db,
  workspaceId: string,
  decay: { points: number; every: string; everySeconds: number } | null,
) {
  return db.one(sql.type(SettingsRow)`
    insert into scoring_settings (workspace_id, decay_points, decay_every, decay_every_seconds, last_decay_at)
    values (${workspaceId}, ${decay?.points ?? null}, ${decay?.every ?? null}, ${decay?.everySeconds ?? null},
      ${decay ? sql.fragment`now()` : null})
    on conflict (workspace_id) do update set decay_points = excluded.decay_points, decay_every = excluded.decay_every,
      decay_every_seconds = excluded.decay_every_seconds, last_decay_at = excluded.last_decay_at, updated_at = now()
    returning decay_points, decay_every, last_decay_at
  `);
}

export const DueDecayRow = z.object({
  workspace_id: z.string(),
  decay_points: z.number().int(),
  decay_every_seconds: z.number().int(),
  periods: z.number().int(),
});

/** Locks one workspace's settings if a decay period has passed (skipping ones another run holds). */
export async function lockDueDecay(db: Db, workspaceId: string) {
  return db.maybeOne(sql.type(DueDecayRow)`
    select workspace_id, decay_points, decay_every_seconds,
      floor(extract(epoch from now() - last_decay_at) / decay_every_seconds)::int as periods
    from scoring_settings
    where workspace_id = ${workspaceId} and decay_points is not null
      and last_decay_at <= now() - make_interval(secs => decay_every_seconds)
    for update skip locked
  `);
}

export async function findWorkspacesDueForDecay(db: Db) {
  return db.anyFirst(sql.type(z.object({ workspace_id: z.string() }))`
    select workspace_id from scoring_settings
    where decay_points is not null and last_decay_at <= now() - make_interval(secs => decay_every_seconds)
    order by workspace_id
  `);
}

/** Moves the decay clock on by whole periods, so a late run neither loses nor repeats one. */
export async function advanceDecayClock(db: Db, workspaceId: string, seconds: number) {
  await db.query(sql.typeAlias('void')`
    update scoring_settings set last_decay_at = last_decay_at + make_interval(secs => ${seconds})
    where workspace_id = ${workspaceId}
  `);
}

export async function lockNonZeroScores(db: Db, workspaceId: string) {
  return db.any(sql.type(z.object({ id: z.string(), lead_score: z.number().int() }))`
    select id, lead_score from contacts where workspace_id = ${workspaceId} and lead_score <> 0
    order by id for update
  `);
}

/** How many contacts of the workspace have each lead score. */
export async function countScores(db: Db, workspaceId: string) {
  return db.any(sql.type(z.object({ score: z.number().int(), count: z.number().int() }))`
    select lead_score as score, count(*)::int as count from contacts
    where workspace_id = ${workspaceId} group by lead_score
  `);
}

const ScoreCount = z.object({ score: z.number().int(), count: z.number().int() });
const Snapshot = z.object({
  counts: z.array(ScoreCount),
  total: z.number().int(),
  counted_at: z.string(),
});

/** The workspace's stored distribution (sql/0056), noting that someone read it (at most once a minute). */
export async function readScoreSnapshot(db: Db, workspaceId: string) {
  return db.maybeOne(sql.type(Snapshot)`
    with seen as (
      update score_distributions set read_at = now()
      where workspace_id = ${workspaceId} and read_at < now() - interval '1 minute'
    )
    select counts, total, counted_at from score_distributions where workspace_id = ${workspaceId}
  `);
}

/** Stores the counts taken at `countedAt` (by default the transaction's start, when they were counted in it). */
export async function saveScoreSnapshot(
  db: Db,
  workspaceId: string,
  counts: readonly { score: number; count: number }[],
  countedAt?: string,
) {
  const total = counts.reduce((sum, row) => sum + row.count, 0);
  return db.one(sql.type(z.object({ counted_at: z.string() }))`
    insert into score_distributions (workspace_id, counts, total, counted_at)
    values (${workspaceId}, ${JSON.stringify(counts)}::jsonb, ${total}, coalesce(${countedAt ?? null}::timestamptz, now()))
    on conflict (workspace_id) do update set counts = excluded.counts, total = excluded.total,
      counted_at = excluded.counted_at
    returning counted_at
  `);
}

/** Stored distributions counted longer than `maxAgeMs` ago and read in the last day. */
export async function findStaleScoreSnapshots(db: Db, maxAgeMs: number) {
  return db.anyFirst(sql.type(z.object({ workspace_id: z.string() }))`
    select workspace_id from score_distributions
    where counted_at < now() - make_interval(secs => ${maxAgeMs / 1000})
      and read_at > now() - interval '1 day'
    order by counted_at
  `);
}
