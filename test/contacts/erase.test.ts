// Deleting a contact erases the person: their events, memberships (each ending with segment.exited),
// enrollments and score history go with them, and nobody else's data changes.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { createCampaign } from '../campaigns/support.ts';
import { createContact, eraseAround, orphanEvents, track, workspace } from '../events/support.ts';
import { createSegment, memberIds } from '../segments/helpers.ts';
import { server } from '../support/server.ts';

const OutgoingRow = z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) });

/** What was emitted about this contact, in order. */
async function emittedAbout(workspaceId: string, contactId: string) {
  return server().context.db.any(sql.type(OutgoingRow)`
    select type, data from outgoing_events
    where workspace_id = ${workspaceId} and data->>'contactId' = ${contactId}
      and type in ('segment.exited', 'contact.deleted')
    order by id
  `);
}

/** Rows still referring to the contact, per table. */
async function leftOver(contactId: string) {
  const counts = await server().context.db.one(sql.type(z.record(z.string(), z.number()))`
    select
      (select count(*)::int from events where contact_id = ${contactId}) as events,
      (select count(*)::int from segment_memberships where contact_id = ${contactId}) as memberships,
      (select count(*)::int from enrollments where contact_id = ${contactId}) as enrollments,
      (select count(*)::int from score_changes where contact_id = ${contactId}) as score_changes,
      (select count(*)::int from contact_aliases where contact_id = ${contactId}) as aliases
  `);
  return counts;
}

describe('contacts: deleting erases the person', () => {
  it("removes the contact's events, memberships, enrollments and score history, emitting the exits", async () => {
    const { admin, base, workspaceId } = await workspace();
    const byEmail = await createSegment(admin, base, {
      field: 'email',
      op: 'ends_with',
      value: '@erase.test',
    });
    const byEvent = await createSegment(admin, base, { event: 'buy' }, 'Buyers');
    const campaign = await createCampaign(admin, base, { trigger: { type: 'event', eventType: 'buy' } });
    expect((await admin.post(`${base}/campaigns/${campaign.id}/activate`)).status).to.equal(200);
    const rule = await admin.post(`${base}/scoring-rules`, { name: 'Buy', eventType: 'buy', points: 5 });
    expect(rule.status, rule.text).to.equal(201);

    const gone = await createContact(admin, base, { email: 'gone@erase.test' });
    const kept = await createContact(admin, base, { email: 'kept@erase.test' });
    const merged = await createContact(admin, base, { email: 'merged@other.test' });
    await admin.post(`${base}/contacts/merge`, { primaryContactId: gone.id, secondaryContactId: merged.id });
    for (const contact of [gone, kept]) await track(admin, base, { type: 'buy', contactId: contact.id });
    expect(await memberIds(admin, base, byEvent.id)).to.deep.equal([gone.id, kept.id].sort());
    const keyed = { type: 'visit', contactId: gone.id };
    const once = await admin.post(`${base}/events`, keyed, { headers: { 'idempotency-key': 'erase-1' } });
    expect(once.status, once.text).to.equal(201);

    const deleted = await admin.delete(`${base}/contacts/${gone.id}`);
    expect(deleted.status, deleted.text).to.equal(204);

    expect(await leftOver(gone.id)).to.deep.equal({
      events: 0,
      memberships: 0,
      enrollments: 0,
      score_changes: 0,
      aliases: 0,
    });
    const events = await admin.get(`${base}/events?limit=200`);
    expect(events.body.map((event: { contact: { id: string } | null }) => event.contact?.id)).to.deep.equal([
      kept.id,
    ]);
    const emitted = await emittedAbout(workspaceId, gone.id);
    expect(emitted.map((row) => row.type)).to.deep.equal([
      'segment.exited',
      'segment.exited',
      'contact.deleted',
    ]);
    expect(emitted.slice(0, 2).map((row) => row.data.segmentId)).to.have.members([byEmail.id, byEvent.id]);
    expect(emitted[2].data).to.deep.equal({ contactId: gone.id, email: 'gone@erase.test' });

    // The rest of the workspace is untouched.
    expect(await memberIds(admin, base, byEvent.id)).to.deep.equal([kept.id]);
    expect(await memberIds(admin, base, byEmail.id)).to.deep.equal([kept.id]);
    const enrollments = await admin.get(`${base}/campaigns/${campaign.id}/enrollments`);
    expect(enrollments.body.data.map((row: { contactId: string }) => row.contactId)).to.deep.equal([kept.id]);
    expect((await admin.get(`${base}/contacts/${kept.id}`)).body.leadScore).to.equal(5);
    // A retry of an erased event cannot bring it back.
    const retried = await admin.post(`${base}/events`, keyed, { headers: { 'idempotency-key': 'erase-1' } });
    expect(retried.status, retried.text).to.equal(409);
    // The merged-away id went with the person.
    expect((await admin.get(`${base}/contacts/${merged.id}`)).status).to.equal(404);
  });

  it('an event tracked during the erasure never outlives the contact: it waits, then goes to a new one', async () => {
    // Events have no foreign key to contacts (sql/0034): ingest's lock on the contact keeps this.
    const { admin, base, workspaceId } = await workspace();
    const ann = await createContact(admin, base, { email: 'ann@example.com' });
    const response = await eraseAround(workspaceId, ann.id, () =>
      admin.post(`${base}/events`, { type: 'purchase', email: 'ann@example.com' }),
    );
    expect(response.status, response.text).to.equal(201);
    expect(response.body.contact.id).to.be.a('string').and.not.equal(ann.id);
    expect(await orphanEvents(workspaceId)).to.equal(0);
  });
});
