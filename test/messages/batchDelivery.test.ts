// A batch of sends (deliverMessages, what the send job runs for a page of a broadcast) keeps every
// rule a single send has: a channel's rate (a message without its send slot is left out of the
// batch's claim, reserves its slot, and is sent at once or by its paced job) and suppression (one
// rule for a batch and for one message, soft bounces included).
import { expect } from 'chai';
import { z } from 'zod';
import { setChannelRates } from '../../src/channels/index.ts';
import { sql } from '../../src/db/pool.ts';
import { deliverMessages } from '../../src/messages/deliver.ts';
import { createMessage, findSuppression, setSubscription } from '../../src/messages/index.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { makeContact, messagingWorkspace, suiteSink } from './support.ts';

const TEMPLATE = { subject: 'News', html: '<p>Hi {{ contact.firstName }}</p>' };

const Row = z.object({
  id: z.string(),
  status: z.string(),
  error: z.string().nullable(),
  rate_slot_ms: z.number().nullable(),
  sent_ms: z.number().nullable(),
});

async function rows(ids: readonly string[]) {
  return server().context.db.any(sql.type(Row)`
    select id, status, error, extract(epoch from rate_slot_at)::float8 * 1000 as rate_slot_ms,
      extract(epoch from sent_at)::float8 * 1000 as sent_ms
    from messages where id = any(${sql.array([...ids], 'text')}) order by sent_at nulls last, rate_slot_at
  `);
}

/**
 * The send slot each message holds while queued, watched from before the delivery until `stop`:
 * its paced job claims a message at its slot and clears it, and a read after the batch's own
 * sends (slow on a busy machine) can come after that.
 */
function watchSlots(ids: readonly string[]) {
  const slots = new Map<string, number>();
  let watching = true;
  const watched = (async () => {
    while (watching) {
      for (const row of await rows(ids)) if (row.rate_slot_ms !== null) slots.set(row.id, row.rate_slot_ms);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      watching = false;
      await watched;
      return slots;
    },
  };
}

/** Contacts of a fresh workspace, each with a queued email message (no send job: the test delivers). */
async function queuedMessages(
  workspace: Awaited<ReturnType<typeof messagingWorkspace>>,
  count: number,
  ignoreUnsubscribe = false,
) {
  const { client, base, workspaceId } = workspace;
  const made: { contactId: string; messageId: string; email: string }[] = [];
  for (let n = 0; n < count; n++) {
    const email = `b${n}.${Date.now()}.${Math.random().toString(36).slice(2)}@example.test`;
    const contactId = await makeContact(client, base, { email, firstName: `N${n}` });
    const message = await server().context.db.transaction((tx) =>
      createMessage(tx, { workspaceId, contactId, channel: 'email', template: TEMPLATE, ignoreUnsubscribe }),
    );
    made.push({ contactId, messageId: message.id, email });
  }
  return made;
}

describe('message delivery in batches', () => {
  const sink = suiteSink();

  it('leaves a rated message without its slot out of the claim: one due now goes with the batch, the others by their paced jobs at the rate', async () => {
    const limited = await messagingWorkspace(sink);
    const free = await messagingWorkspace(sink);
    await setChannelRates(server().context.db, limited.workspaceId, { email: 1 });
    const rated = await queuedMessages(limited, 3);
    const [unrated] = await queuedMessages(free, 1);
    const ids = [...rated.map((m) => m.messageId), unrated.messageId];

    const watch = watchSlots(rated.map((m) => m.messageId));
    const statuses = await deliverMessages(server().context, ids);
    const slots = await watch.stop();
    expect(statuses.get(unrated.messageId)).to.equal('sent');
    const ratedStatuses = rated.map((m) => statuses.get(m.messageId)).sort();
    expect(ratedStatuses).to.deep.equal(['queued', 'queued', 'sent']);
    // The two left for later hold slots one and two seconds after the first.
    const waiting = rated
      .filter((m) => statuses.get(m.messageId) === 'queued')
      .map((m) => ({ id: m.messageId, rate_slot_ms: slots.get(m.messageId) ?? null }))
      .sort((x, y) => (x.rate_slot_ms ?? 0) - (y.rate_slot_ms ?? 0));
    expect(waiting.map((row) => row.rate_slot_ms)).to.not.include(null);
    expect(waiting[1].rate_slot_ms! - waiting[0].rate_slot_ms!).to.be.within(999, 1_001);

    // The worker's paced jobs send them at their slots, once each.
    await eventually(async () => (await rows(ids)).every((row) => row.status === 'sent'), 15_000);
    // Each no earlier than its slot (the claim consumed the slot; sent_at is after the SMTP accept).
    const sentAt = new Map((await rows(ids)).map((row) => [row.id, row.sent_ms!]));
    for (const row of waiting) expect(sentAt.get(row.id)).to.be.at.least(row.rate_slot_ms! - 5);
    const received = await sink.received();
    for (const { email } of [...rated, unrated]) {
      expect(received.filter((r) => r.to.includes(email))).to.have.length(1);
    }
  });

  it('suppresses by the same rule as a single send: soft bounces, hard bounces and complaints hold with ignoreUnsubscribe, other opt-outs do not', async () => {
    const workspace = await messagingWorkspace(sink);
    const { workspaceId } = workspace;
    const [softBounced, unsubscribed, complained, fine] = await queuedMessages(workspace, 4, true);
    const [unsubscribedPlain] = await queuedMessages(workspace, 1);
    const db = server().context.db;
    const optOut = async (
      contactId: string,
      channel: 'email' | 'all',
      reason: 'soft_bounces' | 'api' | 'complaint',
    ) =>
      setSubscription(db, workspaceId, contactId, {
        channel,
        status: 'unsubscribed',
        reason,
        messageId: null,
      });
    await optOut(softBounced.contactId, 'email', 'soft_bounces');
    await optOut(unsubscribed.contactId, 'all', 'api');
    await optOut(complained.contactId, 'email', 'complaint');
    await optOut(unsubscribedPlain.contactId, 'email', 'api');

    const batch = [softBounced, unsubscribed, complained, fine, unsubscribedPlain];
    const statuses = await deliverMessages(
      server().context,
      batch.map((m) => m.messageId),
    );
    const errors = new Map((await rows(batch.map((m) => m.messageId))).map((row) => [row.id, row.error]));
    const outcome = (m: (typeof batch)[number]) => [statuses.get(m.messageId), errors.get(m.messageId)];
    expect(outcome(softBounced)).to.deep.equal(['suppressed', 'repeated soft bounces']);
    expect(outcome(complained)).to.deep.equal(['suppressed', 'complaint']);
    expect(outcome(unsubscribed)).to.deep.equal(['sent', null]);
    expect(outcome(fine)).to.deep.equal(['sent', null]);
    expect(outcome(unsubscribedPlain)).to.deep.equal(['suppressed', 'unsubscribed from email']);
    // One message's check says the same.
    expect(await findSuppression(db, workspaceId, softBounced.contactId, 'email', true)).to.equal(
      'repeated soft bounces',
    );
    expect(await findSuppression(db, workspaceId, unsubscribed.contactId, 'email', true)).to.equal(null);
  });
});
