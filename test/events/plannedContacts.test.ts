// Ingest stores a request's events before it locks their contacts, for the contacts a look without
// locks expects (src/events/ingest.ts). When another transaction changes those contacts in between,
// the events must end on the contact the locks find: the one a merge kept, or the one another
// request created first. Each test holds a transaction open until the batch waits for it.
import { expect } from 'chai';
import { z } from 'zod';
import { mergeContacts } from '../../src/contacts/merge.ts';
import { newId } from '../../src/db/ids.ts';
import { sql, type Tx } from '../../src/db/pool.ts';
import { server } from '../support/server.ts';
import { createContact, orphanEvents, track, waitForLockWaiter, whileHeld, workspace } from './support.ts';

/**
 * In one transaction: `hold`, then `batch` is started and given until it waits for a lock (or
 * ends), then `change`, then the commit. Returns what `batch` gave.
 */
async function changeWhileWaiting<T>(
  hold: (tx: Tx) => Promise<unknown>,
  batch: () => Promise<T>,
  change: (tx: Tx) => Promise<unknown>,
): Promise<T> {
  const { response } = await whileHeld(
    hold,
    async () => {
      const response = batch();
      await Promise.race([waitForLockWaiter(), response]);
      return { response }; // not awaited here: the batch waits for this transaction's end
    },
    change,
  );
  return response;
}

async function contactsOfEvents(workspaceId: string, ids: string[]) {
  return server().context.db.anyFirst(sql.type(z.object({ contact_id: z.string().nullable() }))`
    select distinct contact_id from events
    where workspace_id = ${workspaceId} and id = any(${sql.array(ids, 'text')})
  `);
}

describe('events: contacts that change before ingest locks them', function () {
  this.timeout(30_000);

  it('moves the events to the contact a merge kept, when the merge committed while the batch waited', async () => {
    const { admin, base, workspaceId } = await workspace({ listening: false });
    const known = await createContact(admin, base, { email: 'known@example.com' });
    const anonymous = (await track(admin, base, { type: 'page_view', anonymousId: 'dev-merge' })).contact;
    const events = [
      { type: 'page_view', anonymousId: 'dev-merge' },
      { type: 'purchase', anonymousId: 'dev-merge', metadata: { amount: 5 } },
    ];
    const response = await changeWhileWaiting(
      (tx) =>
        tx.query(sql.unsafe`
          select id from contacts where workspace_id = ${workspaceId}
            and id = any(${sql.array([known.id, anonymous.id], 'text')}) order by id for update`),
      () => admin.post(`${base}/events/batch`, { events }),
      (tx) => mergeContacts(tx, server().context.effects.contacts, workspaceId, known.id, anonymous.id),
    );
    expect(response.status, response.text).to.equal(201);
    const ids = response.body.data.map((event: { id: string }) => event.id);
    expect(response.body.data.map((event: { contact: { id: string } }) => event.contact.id)).to.deep.equal([
      known.id,
      known.id,
    ]);
    expect(await contactsOfEvents(workspaceId, ids)).to.deep.equal([known.id]);
    expect(await orphanEvents(workspaceId)).to.equal(0);
    const listed = await admin.get(`${base}/events?contactId=${known.id}`);
    expect(listed.body.map((event: { id: string }) => event.id)).to.include.members(ids);
  });

  it('moves the events to the contact another request created first, when the batch planned to create it', async () => {
    const { admin, base, workspaceId } = await workspace({ listening: false });
    const theirs = newId('contact');
    const events = [
      { type: 'signup', email: 'late@example.com' },
      { type: 'page_view', email: 'late@example.com' },
    ];
    const response = await changeWhileWaiting(
      // Their contact, not yet committed: the batch plans its own, stores its events, and waits
      // for their insert on the email index when it creates the contact.
      (tx) =>
        tx.query(sql.unsafe`
          insert into contacts (workspace_id, id, email) values (${workspaceId}, ${theirs}, 'late@example.com')`),
      () => admin.post(`${base}/events/batch`, { events }),
      async () => {},
    );
    expect(response.status, response.text).to.equal(201);
    const ids = response.body.data.map((event: { id: string }) => event.id);
    expect(response.body.data[0].contact.id).to.equal(theirs);
    expect(await contactsOfEvents(workspaceId, ids)).to.deep.equal([theirs]);
    expect(await orphanEvents(workspaceId)).to.equal(0);
    const contacts = await admin.get(`${base}/contacts`);
    expect(contacts.body.total).to.equal(1);
  });
});
