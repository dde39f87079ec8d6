// The engine's side of messages: one message per enrollment step, at most one send per message
// however many deliveries race, interrupted sends failed (never resent), and the list filters.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../src/db/pool.ts';
import { claimMessage } from '../../src/messages/claimQueries.ts';
import { createMessage, deliverMessage } from '../../src/messages/index.ts';
import { sweepInterruptedSends } from '../../src/messages/jobs.ts';
import { server } from '../support/server.ts';
import {
  activeCampaign,
  makeContact,
  messagingWorkspace,
  outgoing,
  type Sink,
  suiteSink,
} from './support.ts';

const TEMPLATE = { subject: 'Welcome {{ contact.firstName }}', html: '<p>Hi from {{ campaign.name }}</p>' };

/** A contact enrolled in an email campaign: what the flow engine has when it reaches a send step. */
async function enrolled(sink: Sink) {
  const { client, base, workspaceId } = await messagingWorkspace(sink);
  const email = `d.${Date.now()}.${Math.random().toString(36).slice(2)}@example.test`;
  const contactId = await makeContact(client, base, { email, firstName: 'Grace' });
  // The engine holds the enrollment at the wait: the test makes step 1's message itself.
  const campaignId = await activeCampaign(client, base, 'signup', [
    { type: 'wait', duration: 'P1D' },
    { type: 'send', channel: 'email', subject: 'Welcome', body: '<p>Hi</p>' },
  ]);
  const event = await client.post(`${base}/events`, { type: 'signup', contactId });
  expect(event.status, event.text).to.equal(201);
  const enrollmentId = await server().context.db.oneFirst(sql.type(z.object({ id: z.string() }))`
    select id from enrollments where campaign_id = ${campaignId} and contact_id = ${contactId}
  `);
  const input = {
    workspaceId,
    contactId,
    channel: 'email' as const,
    campaignId,
    enrollmentId,
    stepKey: '1',
    template: TEMPLATE,
    triggerEventId: event.body.id as string,
  };
  return { client, base, workspaceId, email, contactId, campaignId, input };
}

describe('message delivery (the flow engine’s interface)', () => {
  const sink = suiteSink();

  it('makes one message per enrollment step: the second createMessage returns the first', async () => {
    const { input } = await enrolled(sink);
    const db = server().context.db;
    const first = await db.transaction((tx) => createMessage(tx, input));
    const second = await db.transaction((tx) =>
      createMessage(tx, { ...input, template: { subject: 'x', html: 'y' } }),
    );
    expect(first.created).to.equal(true);
    expect(second).to.deep.equal({ id: first.id, created: false });
  });

  it('sends at most once however many deliveries race for the message', async () => {
    const { input, email, campaignId, workspaceId, contactId } = await enrolled(sink);
    const { id } = await server().context.db.transaction((tx) => createMessage(tx, input));
    const statuses = await Promise.all(Array.from({ length: 5 }, () => deliverMessage(server().context, id)));
    expect(statuses.filter((status) => status === 'sent')).to.have.length.at.least(1);
    expect(await deliverMessage(server().context, id)).to.equal('sent');
    const received = (await sink.received()).filter((r) => r.to.includes(email));
    expect(received).to.have.length(1);
    expect(received[0].mail.subject).to.equal('Welcome Grace');
    expect(received[0].mail.html).to.contain('Hi from C ');
    expect(await outgoing(workspaceId, 'message.sent')).to.deep.equal([
      { contactId, channel: 'email', messageId: id, status: 'sent', campaignId },
    ]);
  });

  it('a message waiting for its retry is not sent early by another delivery', async () => {
    const { input, email } = await enrolled(sink);
    const db = server().context.db;
    const { id } = await db.transaction((tx) => createMessage(tx, input));
    // As a deferred first attempt leaves it: queued again, its retry an hour away.
    await db.query(sql.typeAlias('void')`
      update messages set attempts = 1, next_attempt_at = now() + interval '1 hour' where id = ${id}
    `);
    expect(await deliverMessage(server().context, id)).to.equal('queued');
    expect((await sink.received()).filter((r) => r.to.includes(email))).to.have.length(0);
  });

  it('a send interrupted by a killed worker is failed as interrupted after its lease, and never resent', async () => {
    const { input, email, workspaceId, contactId, client, base } = await enrolled(sink);
    const db = server().context.db;
    const { id } = await db.transaction((tx) => createMessage(tx, input));
    // What a worker killed mid-send leaves: the claim committed, no outcome.
    expect(await claimMessage(db, id, 1)).to.not.equal(null);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await sweepInterruptedSends(server().context)).to.be.at.least(1);
    expect(await deliverMessage(server().context, id)).to.equal('failed');
    const message = (await client.get(`${base}/messages/${id}`)).body;
    expect(message).to.include({ status: 'failed', error: 'interrupted', attempts: 1 });
    expect(message.timeline.map((entry: { type: string }) => entry.type)).to.deep.equal(['queued', 'failed']);
    expect(await outgoing(workspaceId, 'message.failed')).to.deep.equal([
      { messageId: id, contactId, error: 'interrupted' },
    ]);
    expect((await sink.received()).filter((r) => r.to.includes(email))).to.have.length(0);
  });

  it('lists messages newest first with filters, and hides other workspaces’ messages', async () => {
    const { input, client, base, contactId, campaignId } = await enrolled(sink);
    const { id: campaignMessage } = await server().context.db.transaction((tx) => createMessage(tx, input));
    const other = await makeContact(client, base, { email: `o.${Date.now()}@example.test` });
    const oneOff = await client.post(`${base}/messages`, {
      contactId: other,
      channel: 'email',
      subject: 's',
      html: 'h',
    });
    const all = await client.get(`${base}/messages`);
    expect(all.body).to.include({ page: 1, limit: 50, total: 2 });
    expect(all.body.data.map((m: { id: string }) => m.id)).to.deep.equal([oneOff.body.id, campaignMessage]);
    const byCampaign = await client.get(`${base}/messages?campaignId=${campaignId}`);
    expect(byCampaign.body.data.map((m: { id: string }) => m.id)).to.deep.equal([campaignMessage]);
    expect(byCampaign.body.data[0]).to.include({ stepKey: '1', contactId, status: 'queued' });
    const byContact = await client.get(`${base}/messages?contactId=${other}&channel=email`);
    expect(byContact.body.total).to.equal(1);
    const bad = await client.get(`${base}/messages?status=lost`);
    expect(bad.status).to.equal(400);
    const stranger = await messagingWorkspace();
    expect((await stranger.client.get(`${stranger.base}/messages/${campaignMessage}`)).status).to.equal(404);
  });
});
