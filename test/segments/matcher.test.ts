// The JavaScript matcher (campaign triggers, scoring rules) and the SQL compiler (segments) must
// agree on every operator and value type: each pair below is evaluated both ways.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import {
  compileMetadataConditions,
  type MetadataCondition,
  MetadataConditions,
  matchesMetadataConditions,
} from '../../src/segments/rules.ts';
import { server } from '../support/server.ts';

const documents: Record<string, unknown>[] = [
  {},
  {
    amount: 150,
    plan: 'Pro',
    paid: true,
    tags: ['VIP', 3],
    at: '2026-03-01T10:00:00+02:00',
    nested: { city: 'Köln' },
  },
  { amount: '150', plan: null, paid: 'true', tags: 'vip', at: '2026-02-30', nested: [] },
  { amount: 99.5, plan: 'pro_plan', paid: false, tags: [], at: '2026-03-01', nested: { city: null } },
];

const conditions: MetadataCondition[] = [
  { path: 'amount', op: 'eq', value: 150 },
  { path: 'amount', op: 'neq', value: 150 },
  { path: 'amount', op: 'gt', value: 99.5 },
  { path: 'amount', op: 'gte', value: 99.5 },
  { path: 'amount', op: 'lt', value: 150 },
  { path: 'amount', op: 'lte', value: 150 },
  { path: 'amount', op: 'in', value: [99.5, '150'] },
  { path: 'amount', op: 'not_in', value: [150] },
  { path: 'plan', op: 'eq', value: 'PRO' },
  { path: 'plan', op: 'contains', value: '_P' },
  { path: 'plan', op: 'not_contains', value: 'pro' },
  { path: 'plan', op: 'starts_with', value: 'pro' },
  { path: 'plan', op: 'ends_with', value: 'AN' },
  { path: 'plan', op: 'exists' },
  { path: 'plan', op: 'not_exists' },
  { path: 'paid', op: 'eq', value: true },
  { path: 'paid', op: 'in', value: [false, 'TRUE'] },
  { path: 'tags', op: 'contains', value: 'vip' },
  { path: 'tags.1', op: 'eq', value: 3 },
  { path: 'tags.-2', op: 'eq', value: 'vip' },
  { path: 'at', op: 'gt', value: '2026-03-01T07:59:59Z' },
  { path: 'at', op: 'lte', value: '2026-03-01' },
  { path: 'nested.city', op: 'eq', value: 'KöLN' },
  { path: 'nested.city', op: 'eq', value: 'KÖLN' },
  { path: 'nested.city', op: 'not_exists' },
  { path: 'nested.0', op: 'exists' },
];

async function inSql(condition: MetadataCondition, metadata: Record<string, unknown>): Promise<boolean> {
  return server().context.db.oneFirst(sql.type(z.object({ holds: z.boolean() }))`
    select ${compileMetadataConditions([condition], 'e')} as holds
    from (select ${sql.jsonb(metadata as never)}::jsonb as metadata) as e
  `);
}

describe('segments: metadata conditions in SQL and in JavaScript', () => {
  it('every condition is valid in the grammar', () => {
    for (const condition of conditions)
      expect(MetadataConditions.safeParse([condition]).success).to.equal(true);
  });

  it('agree on every operator and value type', async () => {
    const disagreements: string[] = [];
    for (const condition of conditions) {
      for (const [index, metadata] of documents.entries()) {
        const js = matchesMetadataConditions([condition], metadata);
        if ((await inSql(condition, metadata)) !== js)
          disagreements.push(`${JSON.stringify(condition)} on #${index}`);
      }
    }
    expect(disagreements).to.deep.equal([]);
  });

  it('give the documented answers', () => {
    const holdsFor = (condition: MetadataCondition) =>
      documents.map((metadata) => matchesMetadataConditions([condition], metadata));
    expect(holdsFor({ path: 'amount', op: 'eq', value: 150 })).to.deep.equal([false, true, false, false]);
    expect(holdsFor({ path: 'plan', op: 'not_contains', value: 'pro' })).to.deep.equal([
      true,
      false,
      true,
      false,
    ]);
    expect(holdsFor({ path: 'tags', op: 'contains', value: 'vip' })).to.deep.equal([
      false,
      true,
      true,
      false,
    ]);
    expect(holdsFor({ path: 'at', op: 'gt', value: '2026-03-01T07:59:59Z' })).to.deep.equal([
      false,
      true,
      false,
      false,
    ]);
    // Only A–Z fold: the same on every database, whatever its locale.
    expect(holdsFor({ path: 'nested.city', op: 'eq', value: 'KöLN' })).to.deep.equal([
      false,
      true,
      false,
      false,
    ]);
    expect(holdsFor({ path: 'nested.city', op: 'eq', value: 'KÖLN' })).to.deep.equal([
      false,
      false,
      false,
      false,
    ]);
    expect(matchesMetadataConditions([], {})).to.equal(true);
    expect(matchesMetadataConditions(null, {})).to.equal(true);
  });
});
