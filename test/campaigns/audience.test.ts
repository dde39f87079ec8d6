// A broadcast's audience before it sends (GET …/campaigns/{id}/audience): each reason proven with
// real contacts, and the reached count checked against what the broadcast then actually sends.
import { expect } from 'chai';
import { setSubscription } from '../../src/messages/index.ts';
import { createContact, outgoing, workspace } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import type { Client } from '../support/client.ts';
import { eventually, expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { createCampaign, emailChannel, goldSegment } from './support.ts';

type Group = { reason: string; count: number; description?: string | null; sample: { id: string }[] };

const gold = (fields: Record<string, unknown>) => ({
  ...fields,
  attributes: { tier: 'gold', ...(fields.attributes as object) },
});

async function optOut(workspaceId: string, contactId: string, channel: 'email' | 'all', reason: string) {
  await setSubscription(server().context.db, workspaceId, contactId, {
    channel,
    status: 'unsubscribed',
    reason: reason as never,
    messageId: null,
  });
}

function byReason(groups: Group[]) {
  return Object.fromEntries(groups.map((group) => [group.reason, group]));
}

async function broadcast(client: Client, base: string, segmentId: string, subject: string) {
  return createCampaign(client, base, {
    name: subject,
    trigger: { type: 'broadcast', segmentId },
    steps: [{ type: 'send', channel: 'email', subject, body: '<p>News</p>' }],
  });
}

async function completed(workspaceId: string, campaignId: string) {
  await eventually(async () =>
    (await outgoing(workspaceId, 'campaign.completed')).some(
      (data) => (data as { campaignId: string }).campaignId === campaignId,
    ),
  );
}

describe('campaigns: a broadcast audience before sending', () => {
  const sink = suiteSink();

  it('counts every reason with a sample, and reaches exactly whom the broadcast then sends to', async () => {
    const { admin, base, workspaceId } = await workspace();
    await emailChannel(admin, base, sink.port);
    const reached = [
      await createContact(admin, base, gold({ email: 'one@audience.test' })),
      await createContact(admin, base, gold({ email: 'two@audience.test' })),
    ];
    const noAddress = await createContact(admin, base, gold({ phone: '+33612345678' }));
    const unsubscribed = await createContact(admin, base, gold({ email: 'unsub@audience.test' }));
    const unsubscribedAll = await createContact(admin, base, gold({ email: 'all@audience.test' }));
    const bounced = await createContact(admin, base, gold({ email: 'bounced@audience.test' }));
    const complained = await createContact(admin, base, gold({ email: 'spam@audience.test' }));
    await createContact(admin, base, { email: 'silver@audience.test', attributes: { tier: 'silver' } });
    const put = await admin.put(`${base}/contacts/${unsubscribed.id}/subscriptions`, {
      subscriptions: [{ channel: 'email', status: 'unsubscribed' }],
    });
    expect(put.status, put.text).to.equal(200);
    await optOut(workspaceId, unsubscribedAll.id, 'all', 'api');
    await optOut(workspaceId, bounced.id, 'email', 'hard_bounce');
    await optOut(workspaceId, complained.id, 'email', 'complaint');
    const segmentId = await goldSegment(admin, base, 'audience');
    const campaign = await broadcast(admin, base, segmentId, 'News');

    const response = await admin.get(`${base}/campaigns/${campaign.id}/audience`);
    expect(response.status, response.text).to.equal(200);
    const audience = response.body;
    expect(audience).to.include({
      campaignId: campaign.id,
      segmentId,
      channel: 'email',
      members: 7,
      reached: 2,
    });
    expect(audience.deferredTotal).to.equal(0);
    const excluded = byReason(audience.excluded);
    const expected: Record<string, string> = {
      no_address: noAddress.id,
      unsubscribed_channel: unsubscribed.id,
      unsubscribed_all: unsubscribedAll.id,
      hard_bounce: bounced.id,
      complaint: complained.id,
    };
    for (const [reason, contactId] of Object.entries(expected)) {
      expect(excluded[reason].count, reason).to.equal(1);
      expect(excluded[reason].sample.map((member) => member.id)).to.deep.equal([contactId]);
    }
    expect(excluded.soft_bounces.count).to.equal(0);
    expect(audience.deferred.map((group: Group) => group.count)).to.deep.equal([0, 0]);

    // The real send: the reached ones get it, the others' messages are suppressed with the same reasons.
    expect(campaign.broadcast).to.deep.equal({ startedAt: null, enrolledAt: null, finishedAt: null });
    const activatedAt = Date.now();
    expect((await admin.post(`${base}/campaigns/${campaign.id}/activate`)).status).to.equal(200);
    await completed(workspaceId, campaign.id);
    const messages = await eventually(async () => {
      const page = await admin.get(`${base}/messages?campaignId=${campaign.id}&limit=100`);
      const all = page.body.data as { contactId: string; status: string; error: string | null }[];
      return all.length === 7 && all.every((m) => m.status === 'sent' || m.status === 'suppressed')
        ? all
        : undefined;
    });
    const sent = messages.filter((message) => message.status === 'sent');
    expect(sent).to.have.length(audience.reached);
    expect(sent.map((m) => m.contactId).sort()).to.deep.equal(reached.map((c) => c.id).sort());
    for (const [reason, contactId] of Object.entries(expected)) {
      const message = messages.find((m) => m.contactId === contactId)!;
      expect(message.error, reason).to.equal(excluded[reason].description);
    }
    await eventually(
      async () => (await sink.received()).filter((r) => r.to[0].endsWith('@audience.test')).length === 2,
    );

    // Its start and finish are kept: finished once no message is left queued or sending.
    const times = await eventually(async () => {
      const { broadcast: kept } = (await admin.get(`${base}/campaigns/${campaign.id}`)).body;
      return kept.finishedAt ? kept : undefined;
    });
    const at = (name: string) => new Date(times[name]).getTime();
    expect(at('startedAt')).to.be.at.least(activatedAt - 1_000);
    expect(at('enrolledAt')).to.be.at.least(at('startedAt'));
    expect(at('finishedAt'))
      .to.be.at.least(at('enrolledAt'))
      .and.at.most(Date.now() + 1_000);
    const listed = (await admin.get(`${base}/campaigns`)).body.data.find(
      (c: { id: string }) => c.id === campaign.id,
    );
    expect(listed.broadcast).to.deep.equal(times);
  });

  it('counts those the frequency cap and the quiet hours defer, as reached', async () => {
    const { admin, base, workspaceId } = await workspace();
    await emailChannel(admin, base, sink.port);
    const utc = await createContact(
      admin,
      base,
      gold({ email: 'utc@deferred.test', attributes: { timezone: 'UTC' } }),
    );
    const away = await createContact(
      admin,
      base,
      gold({ email: 'away@deferred.test', attributes: { timezone: 'Pacific/Kiritimati' } }),
    );
    const segmentId = await goldSegment(admin, base, 'audience');
    const first = await broadcast(admin, base, segmentId, 'First');
    expect((await admin.post(`${base}/campaigns/${first.id}/activate`)).status).to.equal(200);
    await completed(workspaceId, first.id);

    const second = await broadcast(admin, base, segmentId, 'Second');
    const before = (await admin.get(`${base}/campaigns/${second.id}/audience`)).body;
    expect(before).to.include({ members: 2, reached: 2, deferredTotal: 0 });

    // Quiet from an hour ago to an hour from now in UTC: Kiritimati (UTC+14) is outside them.
    const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    const quietHours = { start: clock(Date.now() - 3_600_000), end: clock(Date.now() + 3_600_000) };
    const paced = await admin.put(`${base}/campaign-pacing`, {
      quietHours,
      frequencyCap: { count: 1, per: 'P1D' },
    });
    expect(paced.status, paced.text).to.equal(200);
    const audience = (await admin.get(`${base}/campaigns/${second.id}/audience`)).body;
    expect(audience).to.include({ members: 2, reached: 2, deferredTotal: 2 });
    const deferred = byReason(audience.deferred);
    expect(deferred.frequency_cap.count).to.equal(2);
    expect(deferred.quiet_hours.count).to.equal(1);
    expect(deferred.quiet_hours.sample.map((member) => member.id)).to.deep.equal([utc.id]);
    expect(deferred.frequency_cap.sample.map((member) => member.id).sort()).to.deep.equal(
      [utc.id, away.id].sort(),
    );
  });

  it('samples the first five of a reason in contact order across members of different kinds', async () => {
    const { admin, base, workspaceId } = await workspace();
    // Seven without an email: some with a phone, some with nothing, and opted out or not: several
    // kinds of member that all count as no_address, whose samples must merge in contact order.
    const ids: string[] = [];
    for (let n = 0; n < 7; n++) {
      const fields = n % 2 === 0 ? { phone: `+3361234567${n}` } : { anonymousId: `anon-sample-${n}` };
      const contact = await createContact(admin, base, gold(fields));
      if (n === 3) await optOut(workspaceId, contact.id, 'all', 'api');
      ids.push(contact.id);
    }
    const segmentId = await goldSegment(admin, base, 'audience');
    const campaign = await broadcast(admin, base, segmentId, 'Samples');
    const audience = (await admin.get(`${base}/campaigns/${campaign.id}/audience`)).body;
    expect(audience).to.include({ members: 7, reached: 0 });
    const excluded = byReason(audience.excluded);
    expect(excluded.no_address.count).to.equal(7);
    expect(excluded.no_address.sample.map((member) => member.id)).to.deep.equal(ids.sort().slice(0, 5));
  });

  it('is a 409 for a campaign that is not a broadcast, a 404 from another workspace; members may read it', async () => {
    const { admin, base, workspaceId, withScopes } = await workspace();
    const event = await createCampaign(admin, base);
    expect(event.broadcast).to.equal(null);
    const refused = expectProblem(await admin.get(`${base}/campaigns/${event.id}/audience`), 409);
    expect(refused.detail).to.match(/broadcast/);
    const segmentId = await goldSegment(admin, base, 'audience');
    const campaign = await broadcast(admin, base, segmentId, 'Read');
    const reader = await withScopes(['campaigns:read']);
    expect((await reader.get(`${base}/campaigns/${campaign.id}/audience`)).status).to.equal(200);
    const other = await workspaceWithAdmin();
    expectProblem(
      await other.client.get(`/api/workspaces/${workspaceId}/campaigns/${campaign.id}/audience`),
      404,
    );
    const otherBase = `/api/workspaces/${other.workspaceId}`;
    expectProblem(await other.client.get(`${otherBase}/campaigns/${campaign.id}/audience`), 404);
  });
});
