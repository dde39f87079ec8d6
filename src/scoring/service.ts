// Scoring rules, score history and the workspace's decay setting.
import { recordAudit } from '../audit/index.ts';
import { getContact } from '../contacts/index.ts';
import { NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import { pageWindow } from '../db/paginate.ts';
import type { Db } from '../db/pool.ts';
import type { MetadataCondition } from '../segments/index.ts';
import { durationSeconds } from '../segments/index.ts';
import {
  deleteScoringRule as deleteRuleRow,
  findScoringRule,
  findScoringSettings,
  insertScoringRule,
  listScoreChanges,
  listScoringRules,
  type ScoringRuleFields,
  type ScoringRuleRow,
  type SettingsRow,
  updateScoringRule as updateRuleRow,
  upsertScoringSettings,
} from './queries.ts';

type Page = { page: number; limit: number };

export function toScoringRule(row: ScoringRuleRow) {
  return {
    id: row.id,
    name: row.name,
    eventType: row.event_type,
    points: row.points,
    where: row.where,
    repeatable: row.repeatable,
    cooldown: row.cooldown,
    active: row.active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type RuleInput = Omit<ScoringRuleFields, 'cooldownSeconds' | 'where'> & {
  where?: MetadataCondition[] | null;
};

function fields(input: RuleInput): ScoringRuleFields {
  return {
    ...input,
    where: input.where?.length ? input.where : null,
    cooldownSeconds: input.cooldown ? durationSeconds(input.cooldown) : null,
  };
}

export async function listRulePage(db: Db, workspaceId: string, page: Page) {
  const { rows, total } = await listScoringRules(db, workspaceId, pageWindow(page));
  return { data: rows.map(toScoringRule), page: page.page, limit: page.limit, total };
}

export async function getScoringRule(db: Db, workspaceId: string, ruleId: string) {
  const row = await findScoringRule(db, workspaceId, ruleId);
  if (!row) throw new NotFoundError('Scoring rule');
  return toScoringRule(row);
}

export async function createScoringRule(db: Db, workspaceId: string, input: RuleInput) {
  return db.transaction(async (tx) => {
    const rule = toScoringRule(await insertScoringRule(tx, workspaceId, newId('scoringRule'), fields(input)));
    await recordAudit(tx, { workspaceId, action: 'scoringRule.created', targetId: rule.id, after: rule });
    return rule;
  });
}

export async function updateScoringRule(
  db: Db,
  workspaceId: string,
  ruleId: string,
  patch: Partial<RuleInput>,
) {
  return db.transaction(async (tx) => {
    const current = await findScoringRule(tx, workspaceId, ruleId, true);
    if (!current) throw new NotFoundError('Scoring rule');
    const merged: RuleInput = {
      name: patch.name ?? current.name,
      eventType: patch.eventType ?? current.event_type,
      points: patch.points ?? current.points,
      where: patch.where === undefined ? current.where : patch.where,
      repeatable: patch.repeatable ?? current.repeatable,
      cooldown: patch.cooldown === undefined ? current.cooldown : patch.cooldown,
      active: patch.active ?? current.active,
    };
    const after = toScoringRule(await updateRuleRow(tx, workspaceId, ruleId, fields(merged)));
    const before = toScoringRule(current);
    await recordAudit(tx, { workspaceId, action: 'scoringRule.updated', targetId: ruleId, before, after });
    return after;
  });
}

/** Deleting a rule keeps the history it wrote (its ruleId stays in past changes). */
export async function deleteScoringRule(db: Db, workspaceId: string, ruleId: string) {
  await db.transaction(async (tx) => {
    const current = await findScoringRule(tx, workspaceId, ruleId, true);
    if (!current || !(await deleteRuleRow(tx, workspaceId, ruleId))) throw new NotFoundError('Scoring rule');
    const before = toScoringRule(current);
    await recordAudit(tx, { workspaceId, action: 'scoringRule.deleted', targetId: ruleId, before });
  });
}

export async function scoreHistoryPage(db: Db, workspaceId: string, contactId: string, page: Page) {
  const contact = await getContact(db, workspaceId, contactId);
  const { rows, total } = await listScoreChanges(db, workspaceId, contact.id, pageWindow(page));
  const data = rows.map((row) => ({
    id: row.id,
    ruleId: row.rule_id,
    eventId: row.event_id,
    reason: row.reason,
    previousScore: row.previous_score,
    score: row.score,
    delta: row.score - row.previous_score,
    createdAt: row.created_at,
  }));
  return { data, page: page.page, limit: page.limit, total };
}

function toSettings(row: SettingsRow | null) {
  const decay =
    row?.decay_points && row.decay_every ? { points: row.decay_points, every: row.decay_every } : null;
  return { decay, lastDecayAt: decay ? (row?.last_decay_at ?? null) : null };
}

export async function getScoringSettings(db: Db, workspaceId: string) {
  return toSettings(await findScoringSettings(db, workspaceId));
}

export async function putScoringSettings(
  db: Db,
  workspaceId: string,
  input: { decay: { points: number; every: string } | null },
) {
  const decay = input.decay && { ...input.decay, everySeconds: durationSeconds(input.decay.every)! };
  return db.transaction(async (tx) => {
    const before = toSettings(await findScoringSettings(tx, workspaceId));
    const after = toSettings(await upsertScoringSettings(tx, workspaceId, decay));
    const targetId = workspaceId;
    await recordAudit(tx, { workspaceId, action: 'scoringSettings.updated', targetId, before, after });
    return after;
  });
}
