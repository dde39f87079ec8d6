// Event conditions stay on the contact's own index whatever the statistics say: a freshly loaded
// workspace, or an event type the last ANALYZE never saw, makes the planner take the type for a
// handful of rows, and the (workspace, type, time) index then looks as good as the contact's.
import { expect } from 'chai';
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { Tx } from '../../src/db/pool.ts';
import { sql } from '../../src/db/pool.ts';
import { compileSegmentRules } from '../../src/segments/index.ts';
import { inRolledBack } from '../support/helpers.ts';
import { workspace } from './support.ts';

async function plan(tx: Tx, query: FragmentSqlToken) {
  const lines = await tx.anyFirst(sql.type(z.object({ 'QUERY PLAN': z.string() }))`explain ${query}`);
  return lines.join('\n');
}

/**
 * The generic plan, the one a prepared statement runs after its first executions (ingest prepares
 * its segment diff): the parameters as $1…, planned without their values.
 */
async function genericPlan(tx: Tx, query: FragmentSqlToken) {
  const text = query.sql.replace(/\$slonik_(\d+)/g, '$$$1');
  const explain = sql.type(z.object({ 'QUERY PLAN': z.string() }))`explain (generic_plan) select 1`;
  const lines = await tx.anyFirst({ ...explain, sql: `explain (generic_plan) ${text}` });
  return lines.join('\n');
}

/**
 * A workspace of 2,000 contacts with 20 events each, analyzed before any event of `type` exists
 * (so the planner takes the type for a handful of rows), then given many events of that type.
 */
async function staleWorkspace(tx: Tx, workspaceId: string, type: string) {
  await tx.query(sql.unsafe`
    insert into contacts (workspace_id, id, email)
    select ${workspaceId}, ${workspaceId} || '_ct_' || n, 'c' || n || '@stale.example.com'
    from generate_series(1, 2000) as n`);
  await tx.query(sql.unsafe`
    insert into events (workspace_id, id, contact_id, type, occurred_at)
    select ${workspaceId}, ${workspaceId} || '_ev_' || n, ${workspaceId} || '_ct_' || (n % 2000 + 1),
           'page_view', now() - (n % 1000) * interval '1 minute'
    from generate_series(1, 40000) as n`);
  await tx.query(sql.unsafe`analyze events`);
  await tx.query(sql.unsafe`
    insert into events (workspace_id, id, contact_id, type, occurred_at)
    select ${workspaceId}, ${workspaceId} || '_new_' || n, ${workspaceId} || '_ct_' || (n % 2000 + 1),
           ${type}, now() - (n % 1000) * interval '1 minute'
    from generate_series(1, 40000) as n`);
}

const rules = [{ event: 'signed_up' }, { event: 'signed_up', within: 'P7D', count: { gte: 3 } }];

/** The plans of each rule for one contact, and set-wise for a batch's contacts (ingest's diff). */
async function conditionPlans(tx: Tx, workspaceId: string) {
  const plans: string[] = [];
  const ids = Array.from({ length: 1000 }, (_, n) => `${workspaceId}_ct_${n + 1}`);
  for (const rule of rules) {
    const condition = compileSegmentRules(rule as Parameters<typeof compileSegmentRules>[0]);
    const batch = sql.fragment`
      with targets as materialized (
        select * from contacts where workspace_id = ${workspaceId} and id = any(${sql.array(ids, 'text')}))
      select c.id, ${condition} from targets c`;
    const one = sql.fragment`
      select ${condition} from contacts c where c.workspace_id = ${workspaceId} and c.id = ${ids[6]}`;
    plans.push(await plan(tx, one), await plan(tx, batch), await genericPlan(tx, batch));
  }
  return plans;
}

function expectContactIndex(plans: string[]) {
  for (const text of plans) {
    expect(text).to.match(/events_\d{4}_\d{2}_workspace_id_contact_id_type_occurred_at_idx/);
    expect(text).to.not.match(/workspace_id_type_occurred_at_idx/);
  }
}

describe('event condition plans', () => {
  it('look up the contact’s own events by its index when the statistics predate the event type, and after', async () => {
    const { workspaceId } = await workspace({ listening: false });
    await inRolledBack(async (tx) => {
      await staleWorkspace(tx, workspaceId, 'signed_up');
      expectContactIndex(await conditionPlans(tx, workspaceId));
      await tx.query(sql.unsafe`analyze events`);
      expectContactIndex(await conditionPlans(tx, workspaceId));
    });
  });
});
