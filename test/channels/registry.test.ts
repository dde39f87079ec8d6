// The database holds every registered channel, and only the registry decides which names exist:
// no CHECK constraint lists channel names any more (sql/0042, docs/decisions/0013), every table
// with a channel column stores each registered one, and the API refuses a name the registry
// does not hold.
import { expect } from 'chai';
import { z } from 'zod';
import { CHANNEL_NAMES } from '../../src/channels/index.ts';
import { expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { sql, testDb } from '../support/helpers.ts';

const CHANNEL_TABLES = ['channel_configs', 'messages', 'contact_subscriptions', 'channel_send_rates'];

describe('channels: the registry is the one list of channel names', () => {
  it('leaves no CHECK constraint naming channels on a table with a channel column', async () => {
    const checks = await testDb().any(sql.type(z.object({ table: z.string(), definition: z.string() }))`
      select rel.relname as table, pg_get_constraintdef(con.oid) as definition
      from pg_constraint con join pg_class rel on rel.oid = con.conrelid
      join pg_namespace ns on ns.oid = rel.relnamespace and ns.nspname = current_schema()
      where con.contype = 'c' and pg_get_constraintdef(con.oid) like '%channel%'
    `);
    expect(checks).to.deep.equal([]);
    const columns = await testDb().anyFirst(sql.type(z.object({ table_name: z.string() }))`
      select table_name from information_schema.columns
      where table_schema = current_schema() and column_name = 'channel'
    `);
    expect(columns).to.have.members(CHANNEL_TABLES);
  });

  it('stores every registered channel in every table that has a channel column', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const contact = await admin.post(`/api/workspaces/${workspaceId}/contacts`, {
      email: 'registry@example.test',
    });
    const contactId = (contact.body as { id: string }).id;
    for (const channel of CHANNEL_NAMES) {
      await testDb().query(sql.unsafe`
        insert into channel_configs (workspace_id, channel, settings, secrets)
        values (${workspaceId}, ${channel}, '{}', '{}')`);
      await testDb().query(sql.unsafe`
        insert into contact_subscriptions (workspace_id, contact_id, channel, status)
        values (${workspaceId}, ${contactId}, ${channel}, 'unsubscribed')`);
      await testDb().query(sql.unsafe`
        insert into channel_send_rates (workspace_id, channel, rate_per_second)
        values (${workspaceId}, ${channel}, 1)`);
      await testDb().query(sql.unsafe`
        insert into messages (workspace_id, id, contact_id, channel, template, data)
        values (${workspaceId}, ${`msg_registry_${channel}`}, ${contactId}, ${channel}, '{"subject":""}', '{}')`);
    }
    const stored = await testDb().anyFirst(sql.type(z.object({ channel: z.string() }))`
      select channel from messages where workspace_id = ${workspaceId} order by channel`);
    expect(stored).to.deep.equal([...CHANNEL_NAMES].sort());
  });

  it('refuses a channel name the registry does not hold, through the API', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const rates = await admin.put(`/api/workspaces/${workspaceId}/campaign-pacing`, {
      ratePerSecond: { fax: 1 },
    });
    expectProblem(rates, 400);
    const messages = await admin.get(`/api/workspaces/${workspaceId}/messages?channel=fax`);
    expectProblem(messages, 400);
  });
});
