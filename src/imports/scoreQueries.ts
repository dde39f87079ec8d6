// Lead scores of an events import, set-wise. Which (event, rule) pairs score is decided per rule:
// in SQL for the rules it can express (repeatable rules: every matching event; once-only rules:
// the first matching event of a contact the rule never scored), in Node for rules with a cooldown
// (a chain: each scoring event restarts the span), as ingest decides them. The pairs go to one
// table; a window sum over each contact's pairs in event order then gives every change its
// previous and new score, and one statement writes the history rows, the final scores and one
// contact.score_changed per contact whose score moved (the net move of the import, docs/guides/import.md).
// Ids come from one head and a counter (src/imports/bulkIds.ts).
import type { FragmentSqlToken as Fragment } from 'slonik';
import { z } from 'zod';
import { sql, type Tx } from '../db/pool.ts';
import type { ActiveRuleRow } from '../scoring/index.ts';
import { compileMetadataConditions } from '../segments/index.ts';
import { countedIds } from './bulkIds.ts';
import { IMPORTED, PLANNED, PLANNED_SCORES } from './eventQueries.ts';
import { AFFECTED } from './stagingQueries.ts';

export const FIRED = sql.identifier(['import_fired']);

/** Every rule's position in creation order: a contact's pairs of one event apply in that order. */
export type OrderedRule = ActiveRuleRow & { position: number };

export async function createFiredTable(tx: Tx) {
  await tx.query(sql.typeAlias('void')`
    create temporary table import_fired (
      contact_id text not null, event_id text not null, rule_id text not null, rule_position int not null,
      occurred_at timestamptz not null, line int not null, points int not null
    ) on commit drop
  `);
}

function matching(rule: OrderedRule): Fragment {
  const where = rule.where?.length ? compileMetadataConditions(rule.where, 's') : sql.fragment`true`;
  return sql.fragment`
    from ${IMPORTED} s
    where s.contact_id is not null and s.type = ${rule.event_type} and ${where}`;
}

const pairColumns = (rule: OrderedRule) => sql.fragment`
  s.contact_id, s.event_id, ${rule.id}::text, ${rule.position}::int, s.occurred_at, s.line, ${rule.points}::int`;

/** The pairs of a repeatable rule without cooldown (every match) or a once-only rule without one (the first). */
export async function fireInSql(tx: Tx, workspaceId: string, rule: OrderedRule) {
  if (rule.repeatable) {
    await tx.query(sql.typeAlias('void')`insert into ${FIRED} select ${pairColumns(rule)} ${matching(rule)}`);
    return;
  }
  await tx.query(sql.typeAlias('void')`
    insert into ${FIRED}
    select distinct on (s.contact_id) ${pairColumns(rule)} ${matching(rule)}
      and not exists (
        select 1 from score_changes sc
        where sc.workspace_id = ${workspaceId} and sc.rule_id = ${rule.id} and sc.contact_id = s.contact_id
          and sc.reason = 'rule')
    order by s.contact_id, s.occurred_at, s.line
  `);
}

const Candidate = z.object({
  id: z.string(),
  contactId: z.string(),
  type: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  occurredAt: z.string(),
  /** The time exact to the µs (occurredAt has ms), for the pair's row. */
  exactAt: z.string(),
  line: z.number(),
});

/**
 * Matches of a cooldown rule read into Node a page at a time: the page's contacts stop where their
 * matches pass this many (one contact's matches come whole: its chain is walked in one go).
 * Memory stays bounded by it rather than by how many events the page's contacts have.
 */
const COOLDOWN_PAGE_EVENTS = 2_000;

/** The next contacts' matches of a cooldown rule, in event order (the rule's `where` tested in SQL). */
export async function cooldownCandidates(tx: Tx, rule: OrderedRule, afterContact: string, contacts: number) {
  return tx.any(sql.type(Candidate)`
    with counted as (
      select s.contact_id, count(*) as matches ${matching(rule)} and s.contact_id > ${afterContact}
      group by s.contact_id order by s.contact_id limit ${contacts}
    ), page as (
      select contact_id from (
        select contact_id, sum(matches) over (order by contact_id) - matches as before from counted) c
      where before < ${COOLDOWN_PAGE_EVENTS}
    )
    select s.event_id as id, s.contact_id as "contactId", s.type, '{}'::jsonb as metadata,
      s.occurred_at as "occurredAt", s.occurred_at::text as "exactAt", s.line
    ${matching(rule)} and s.contact_id = any(array(select contact_id from page))
    order by s.contact_id, s.occurred_at, s.line
  `);
}

/** Adds the pairs Node decided, as the candidates gave them (no read of the imported rows). */
export async function insertPairs(
  tx: Tx,
  rule: OrderedRule,
  pairs: readonly { id: string; contactId: string; exactAt: string; line: number }[],
) {
  if (pairs.length === 0) return;
  await tx.query(sql.typeAlias('void')`
    insert into ${FIRED}
    select p.contact_id, p.event_id, ${rule.id}::text, ${rule.position}::int, p.occurred_at::timestamptz,
      p.line, ${rule.points}::int
    from unnest(
      ${sql.array(
        pairs.map((pair) => pair.contactId),
        'text',
      )}::text[],
      ${sql.array(
        pairs.map((pair) => pair.id),
        'text',
      )}::text[],
      ${sql.array(
        pairs.map((pair) => pair.exactAt),
        'text',
      )}::text[],
      ${sql.array(
        pairs.map((pair) => pair.line),
        'int4',
      )}::int[]
    ) as p(contact_id, event_id, occurred_at, line)
  `);
}

/**
 * Whether no contact can reach the clamp even if every pair went its way: the largest score of the
 * scored contacts plus every pair's points. Usually true, and then the per-contact sums are not
 * needed (their group by over 1,030,000 pairs took 0.6–1.0 s, this check 0.3–0.5 s).
 */
async function noneCanClamp(tx: Tx, workspaceId: string, limit: number): Promise<boolean> {
  return tx.oneFirst(sql.type(z.object({ safe: z.boolean() }))`
    select coalesce((select sum(abs(points::bigint)) from ${FIRED}), 0)
      + coalesce((select max(abs(lead_score::bigint)) from contacts
                  where workspace_id = ${workspaceId} and id in (select contact_id from ${AFFECTED})), 0)
      <= ${limit} as safe
  `);
}

/**
 * Contacts whose score could reach the ±2,000,000,000 clamp: a running sum cannot clamp, so their
 * pairs move out of the table into `import_clamped`, and they are scored event by event instead.
 */
export async function setAsideClampable(tx: Tx, workspaceId: string, limit: number): Promise<number> {
  await tx.query(sql.typeAlias('void')`
    create temporary table import_clamped (contact_id text primary key) on commit drop
  `);
  if (await noneCanClamp(tx, workspaceId, limit)) return 0;
  return tx.oneFirst(sql.type(z.object({ n: z.number() }))`
    with risky as (
      insert into import_clamped
      select f.contact_id from ${FIRED} f
      left join contacts c on c.workspace_id = ${workspaceId} and c.id = f.contact_id
      group by f.contact_id, c.lead_score
      having abs(coalesce(c.lead_score, 0)::bigint) + sum(abs(f.points::bigint)) > ${limit}
      returning contact_id
    ), removed as (
      delete from ${FIRED} f using risky r where f.contact_id = r.contact_id
    )
    select count(*)::int as n from risky
  `);
}

export async function clampedPage(tx: Tx, after: string, limit: number) {
  return tx.anyFirst(sql.type(z.object({ contact_id: z.string() }))`
    select contact_id from import_clamped where contact_id > ${after} order by contact_id limit ${limit}
  `);
}

/** Locks the scored contacts in id order (as ingest does), then writes history, scores and events. */
export async function writeFiredScores(tx: Tx, workspaceId: string, emit: boolean): Promise<number> {
  await tx.query(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from (
      select 1 from contacts where workspace_id = ${workspaceId}
        and id in (select distinct contact_id from ${FIRED}) order by id for update) locked
  `);
  return tx.oneFirst(sql.type(z.object({ n: z.number() }))`
    with ordered as (
      select f.contact_id, f.event_id, f.rule_id, f.points,
        coalesce(c.lead_score, 0) + sum(f.points) over running as score,
        row_number() over (order by f.contact_id, f.occurred_at, f.line, f.rule_position) as nth
      from ${FIRED} f left join contacts c on c.workspace_id = ${workspaceId} and c.id = f.contact_id
      window running as (partition by f.contact_id order by f.occurred_at, f.line, f.rule_position
                         rows unbounded preceding)
    ), history as (
      insert into score_changes (workspace_id, id, contact_id, rule_id, event_id, reason, previous_score, score)
      select ${workspaceId}, ${countedIds('scoreChange')(sql.fragment`nth`)},
        contact_id, rule_id, event_id, 'rule', score - points, score
      from ordered
    ), final as (
      select distinct on (contact_id) contact_id, score, nth from ordered order by contact_id, nth desc
    ), emitted as (
      insert into outgoing_events (id, workspace_id, type, data)
      select ${countedIds('outgoingEvent')(sql.fragment`f.nth`)}, ${workspaceId},
        'contact.score_changed', jsonb_build_object(
          'contactId', f.contact_id, 'previousScore', coalesce(c.lead_score, 0), 'score', f.score, 'ruleId', null)
      from final f left join contacts c on c.workspace_id = ${workspaceId} and c.id = f.contact_id
      where ${emit} and f.score <> coalesce(c.lead_score, 0)
    ), scored as (
      update contacts c set lead_score = f.score
      from final f where c.workspace_id = ${workspaceId} and c.id = f.contact_id
    ), planned as (
      -- Contacts the import plans (not created yet) take theirs when created (createPlannedContacts).
      insert into ${PLANNED_SCORES} (contact_id, score)
      select f.contact_id, f.score from final f join ${PLANNED} n on n.id = f.contact_id
    )
    select count(*)::int as n from ordered
  `);
}
