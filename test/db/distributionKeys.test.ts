// The schema stays distributable by workspace (Citus; docs/operate/scale-out.md): read from the catalog, so
// a table added tomorrow is held to it without anyone remembering this file. A workspace-owned table
// is any table with a workspace_id column; its primary key and unique keys must lead with
// workspace_id, and its foreign keys to other workspace-owned tables must go through workspace_id on
// both sides (to workspaces: workspace_id itself; to a reference table: anything). Every other table
// must be classified below as reference (copied to every node) or local (coordinator only).
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { type Db, sql } from '../../src/db/pool.ts';
import { testDb } from '../support/helpers.ts';

/** Tables with a workspace_id column that may break the rule, and why. None today. */
const EXEMPT: Record<string, string> = {};

/** Tables without workspace_id, and how they live on a distributed cluster. */
const NOT_PER_WORKSPACE: Record<string, 'distributed by id' | 'reference' | 'local'> = {
  workspaces: 'distributed by id', // its id is every other table's workspace_id: colocated
  users: 'reference', // memberships, api_keys, invitations … reference it
  sessions: 'local',
  password_resets: 'local', // a user's reset links, read by the web process alone
  auth_attempts: 'local',
  schema_migrations: 'local',
  public_request_counts: 'local',
};

const KeyRow = z.object({
  table: z.string(),
  name: z.string(),
  kind: z.enum(['primary key', 'unique', 'foreign key']),
  columns: z.array(z.string()),
  referenced: z.string().nullable(),
  referenced_columns: z.array(z.string()).nullable(),
});
type KeyRow = z.infer<typeof KeyRow>;

/** Every primary key, unique index (constraint or not, partial included) and foreign key. */
async function keysOf(db: Db, schema: string) {
  return db.any(sql.type(KeyRow)`
    with tables as (
      select c.oid, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relkind in ('r', 'p') and not c.relispartition
    )
    select t.relname as table, (select ic.relname::text from pg_class ic where ic.oid = i.indexrelid) as name,
      (case when i.indisprimary then 'primary key' else 'unique' end) as kind,
      array(select a.attname::text from unnest(i.indkey::int2[]) with ordinality k(attnum, n)
            left join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
            where k.n <= i.indnkeyatts order by k.n) as columns,
      null as referenced, null::text[] as referenced_columns
    from tables t join pg_index i on i.indrelid = t.oid
    where i.indisunique
    union all
    select t.relname, con.conname, 'foreign key',
      array(select a.attname::text from unnest(con.conkey) with ordinality k(attnum, n)
            join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.n),
      con.confrelid::regclass::text,
      array(select a.attname::text from unnest(con.confkey) with ordinality k(attnum, n)
            join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum order by k.n)
    from tables t join pg_constraint con on con.conrelid = t.oid and con.contype = 'f'
  `);
}

async function tablesOf(db: Db, schema: string) {
  return db.any(sql.type(z.object({ table: z.string(), per_workspace: z.boolean() }))`
    select c.relname as table,
      exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'workspace_id'
              and not a.attisdropped) as per_workspace
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'p') and not c.relispartition
    order by 1
  `);
}

/** What breaks distribution by workspace_id, one line each. */
async function distributionViolations(db: Db, schema: string): Promise<string[]> {
  const tables = await tablesOf(db, schema);
  const owned = new Set(tables.filter((t) => t.per_workspace && !(t.table in EXEMPT)).map((t) => t.table));
  const problems: string[] = [];
  for (const { table, per_workspace } of tables) {
    if (!per_workspace && !(table in NOT_PER_WORKSPACE))
      problems.push(
        `${table}: no workspace_id; classify it (reference or local) in this test and docs/operate/scale-out.md`,
      );
  }
  const keys = await keysOf(db, schema);
  for (const table of owned) {
    if (!keys.some((key) => key.table === table && key.kind === 'primary key'))
      problems.push(`${table}: no primary key`);
  }
  for (const key of keys) problems.push(...keyProblems(key, owned));
  return problems;
}

function keyProblems(key: KeyRow, owned: Set<string>): string[] {
  const where = `${key.table}: ${key.kind} ${key.name} (${key.columns.join(', ')})`;
  const referencedName = key.referenced?.replace(/^.*\./, '') ?? '';
  if (key.kind !== 'foreign key') {
    return owned.has(key.table) && key.columns[0] !== 'workspace_id'
      ? [`${where} does not lead with workspace_id`]
      : [];
  }
  const target = `${referencedName} (${key.referenced_columns?.join(', ')})`;
  if (!owned.has(key.table)) {
    // A reference or local table may not point into distributed data.
    return owned.has(referencedName) || referencedName === 'workspaces'
      ? [`${where} → ${target}: from a table not per workspace`]
      : [];
  }
  if (referencedName === 'workspaces') {
    return key.columns.length === 1 && key.columns[0] === 'workspace_id' ? [] : [`${where} → ${target}`];
  }
  if (owned.has(referencedName)) {
    const through = key.columns[0] === 'workspace_id' && key.referenced_columns?.[0] === 'workspace_id';
    return through ? [] : [`${where} → ${target} does not go through workspace_id`];
  }
  return NOT_PER_WORKSPACE[referencedName] === 'reference'
    ? []
    : [`${where} → ${target}: not a reference table`];
}

describe('keys for distribution by workspace (Citus)', () => {
  it('every workspace-owned table leads its primary, unique and foreign keys with workspace_id', async () => {
    expect(await distributionViolations(testDb(), 'public')).to.deep.equal([]);
  });

  it('names what breaks the rule: keys without workspace_id, foreign keys around it, unclassified tables', async () => {
    const schema = `probe_${randomBytes(4).toString('hex')}`;
    const db = testDb();
    await db.query(sql.unsafe`create schema ${sql.identifier([schema])}`);
    try {
      for (const statement of [
        sql.fragment`create table ${sql.identifier([schema, 'workspaces'])} (id text primary key)`,
        sql.fragment`create table ${sql.identifier([schema, 'things'])} (workspace_id text, id text primary key,
          code text, unique (code), unique (workspace_id, code))`,
        sql.fragment`create table ${sql.identifier([schema, 'parts'])} (workspace_id text, id text,
          thing_id text references ${sql.identifier([schema, 'things'])} (id), primary key (workspace_id, id))`,
        sql.fragment`create table ${sql.identifier([schema, 'loose'])} (id text)`,
      ]) {
        await db.query(sql.unsafe`${statement}`);
      }
      const problems = await distributionViolations(db, schema);
      expect(problems).to.have.members([
        'loose: no workspace_id; classify it (reference or local) in this test and docs/operate/scale-out.md',
        'things: primary key things_pkey (id) does not lead with workspace_id',
        'things: unique things_code_key (code) does not lead with workspace_id',
        'parts: foreign key parts_thing_id_fkey (thing_id) → things (id) does not go through workspace_id',
      ]);
    } finally {
      await db.query(sql.unsafe`drop schema ${sql.identifier([schema])} cascade`);
    }
  });
});
