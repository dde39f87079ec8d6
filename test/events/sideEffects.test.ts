import { expect } from 'chai';
import type { Client } from '../support/client.ts';
import { track, workspace } from './support.ts';

async function created(client: Client, path: string, body: unknown) {
  const response = await client.post(path, body);
  expect(response.status, response.text).to.equal(201);
  return response.body.id as string;
}

describe('events: side effects are committed before the 201', () => {
  it('reflects segment membership, lead score and enrollments in the same answer, in the documented order', async () => {
    const { admin, base } = await workspace();
    const buyers = await created(admin, `${base}/segments`, {
      name: 'Big buyers',
      rules: { event: 'purchase', where: [{ path: 'amount', op: 'gte', value: 100 }] },
    });
    const hot = await created(admin, `${base}/segments`, { name: 'Hot', rules: { leadScore: { gte: 25 } } });
    await created(admin, `${base}/scoring-rules`, { name: 'Purchase', eventType: 'purchase', points: 25 });
    const onEvent = await created(admin, `${base}/campaigns`, {
      name: 'Thanks',
      trigger: { type: 'event', eventType: 'purchase' },
      steps: [{ type: 'send', channel: 'email', subject: 'Thanks', body: 'Thanks!' }],
    });
    const onHot = await created(admin, `${base}/campaigns`, {
      name: 'Hot lead',
      trigger: { type: 'segment_entered', segmentId: hot },
      steps: [{ type: 'send', channel: 'telegram', text: 'Call them' }],
    });
    for (const id of [onEvent, onHot]) await admin.post(`${base}/campaigns/${id}/activate`);

    const event = await track(admin, base, {
      type: 'purchase',
      email: 'lead@example.com',
      metadata: { amount: 150 },
    });
    const contactId = event.contact.id;
    const [contact, inBuyers, inHot, eventEnrollments, hotEnrollments] = await Promise.all([
      admin.get(`${base}/contacts/${contactId}`),
      admin.get(`${base}/contacts?segmentId=${buyers}`),
      admin.get(`${base}/contacts?segmentId=${hot}`),
      admin.get(`${base}/campaigns/${onEvent}/enrollments`),
      admin.get(`${base}/campaigns/${onHot}/enrollments`),
    ]);
    expect(contact.body.leadScore).to.equal(25);
    expect(inBuyers.body.data.map((c: { id: string }) => c.id)).to.deep.equal([contactId]);
    expect(inHot.body.data.map((c: { id: string }) => c.id)).to.deep.equal([contactId]);
    expect(eventEnrollments.body.data.map((e: { contactId: string }) => e.contactId)).to.deep.equal([
      contactId,
    ]);
    expect(hotEnrollments.body.data.map((e: { contactId: string }) => e.contactId)).to.deep.equal([
      contactId,
    ]);
  });

  it('applies the same side effects to every contact of a batch', async () => {
    const { admin, base } = await workspace();
    await created(admin, `${base}/scoring-rules`, { name: 'View', eventType: 'page_view', points: 1 });
    const viewers = await created(admin, `${base}/segments`, {
      name: 'Viewers',
      rules: { event: 'page_view', count: { gte: 2 } },
    });
    const events = ['a', 'b', 'a', 'c', 'a'].map((who) => ({
      type: 'page_view',
      email: `${who}@example.com`,
    }));
    const response = await admin.post(`${base}/events/batch`, { events });
    expect(response.status, response.text).to.equal(201);
    const members = await admin.get(`${base}/contacts?segmentId=${viewers}`);
    expect(members.body.data.map((c: { email: string }) => c.email)).to.deep.equal(['a@example.com']);
    const a = await admin.get(`${base}/contacts?email=a@example.com`);
    expect(a.body.data[0].leadScore).to.equal(3);
  });

  it('carries memberships, enrollments and scores over a merge', async () => {
    const { admin, base } = await workspace();
    await created(admin, `${base}/scoring-rules`, { name: 'View', eventType: 'page_view', points: 5 });
    const campaign = await created(admin, `${base}/campaigns`, {
      name: 'Welcome',
      trigger: { type: 'event', eventType: 'page_view' },
      steps: [{ type: 'wait', duration: 'P1D' }],
    });
    await admin.post(`${base}/campaigns/${campaign}/activate`);
    const anonymous = await track(admin, base, { type: 'page_view', anonymousId: 'd1' });
    const known = await track(admin, base, { type: 'page_view', email: 'k@example.com' });
    const merged = await admin.post(`${base}/contacts/merge`, {
      primaryContactId: known.contact.id,
      secondaryContactId: anonymous.contact.id,
    });
    expect(merged.body.leadScore).to.equal(10);
    const enrolled = await admin.get(`${base}/campaigns/${campaign}/enrollments`);
    expect(enrolled.body.data.map((e: { contactId: string }) => e.contactId)).to.deep.equal([
      known.contact.id,
      known.contact.id,
    ]);
    const history = await admin.get(`${base}/contacts/${known.contact.id}/score-history`);
    expect(history.status, history.text).to.equal(200);
  });
});
