// Deleting a segment that campaigns are triggered by: the 409 names each campaign with advice its
// status allows, and following that advice frees the segment.
import { expect } from 'chai';
import { workspace } from '../events/support.ts';
import { expectProblem } from '../support/factories.ts';
import { createSegment } from './helpers.ts';

describe('segments: deleting one that campaigns use', () => {
  it('names every campaign (id, name, status) and gives advice that works in its status', async () => {
    const { admin, base } = await workspace();
    const segment = await createSegment(admin, base, { field: 'email', op: 'ends_with', value: '@x.test' });
    const campaigns: Record<string, string> = {};
    for (const [name, transitions] of [
      ['Draft one', []],
      ['Active one', ['activate']],
      ['Paused one', ['activate', 'pause']],
      ['Archived one', ['archive']],
    ] as const) {
      const created = await admin.post(`${base}/campaigns`, {
        name,
        trigger: { type: 'segment_entered', segmentId: segment.id },
        steps: [{ type: 'wait', duration: 'P1D' }],
      });
      expect(created.status, created.text).to.equal(201);
      for (const transition of transitions)
        expect((await admin.post(`${base}/campaigns/${created.body.id}/${transition}`)).status).to.equal(200);
      campaigns[name] = created.body.id;
    }

    const refused = expectProblem(await admin.delete(`${base}/segments/${segment.id}`), 409);
    const id = (name: string) => campaigns[name];
    expect(refused.detail).to.contain('4 campaigns are using this segment');
    expect(refused.detail).to.contain(
      `"Draft one" (${id('Draft one')}, draft): change what names it (PATCH …/campaigns/${id('Draft one')})`,
    );
    for (const [name, status] of [
      ['Active one', 'active'],
      ['Paused one', 'paused'],
    ])
      expect(refused.detail).to.contain(
        `"${name}" (${id(name)}, ${status}): archive it (POST …/campaigns/${id(name)}/archive), then delete it`,
      );
    expect(refused.detail).to.contain(`"Archived one" (${id('Archived one')}, archived): delete it`);
    expect(refused.detail).not.to.match(/change what names it[^;]*(active|paused|archived)\)/);

    // The advice is possible: follow it for each campaign, and the segment can go.
    const retriggered = await admin.patch(`${base}/campaigns/${id('Draft one')}`, {
      trigger: { type: 'event', eventType: 'signup' },
    });
    expect(retriggered.status, retriggered.text).to.equal(200);
    for (const name of ['Active one', 'Paused one']) {
      expect((await admin.post(`${base}/campaigns/${id(name)}/archive`)).status).to.equal(200);
      expect((await admin.delete(`${base}/campaigns/${id(name)}`)).status).to.equal(204);
    }
    const one = expectProblem(await admin.delete(`${base}/segments/${segment.id}`), 409);
    expect(one.detail).to.match(/^A campaign is using this segment/);
    expect((await admin.delete(`${base}/campaigns/${id('Archived one')}`)).status).to.equal(204);
    expect((await admin.delete(`${base}/segments/${segment.id}`)).status).to.equal(204);
  });

  it('counts a broadcast audience and a branch condition as uses too, in a draft and once active', async () => {
    const { admin, base } = await workspace();
    const audience = await createSegment(admin, base, { field: 'email', op: 'ends_with', value: '@a.test' });
    const branchOn = await createSegment(admin, base, { field: 'email', op: 'ends_with', value: '@b.test' });
    const broadcast = await admin.post(`${base}/campaigns`, {
      name: 'Launch',
      trigger: { type: 'broadcast', segmentId: audience.id, sendAt: '2030-01-01T09:00:00.000Z' },
      steps: [{ type: 'wait', duration: 'P1D' }],
    });
    expect(broadcast.status, broadcast.text).to.equal(201);
    const branching = await admin.post(`${base}/campaigns`, {
      name: 'Follow-up',
      trigger: { type: 'event', eventType: 'demo.requested' },
      steps: [
        { type: 'wait', duration: 'P1D' },
        // biome-ignore lint/suspicious/noThenProperty: the branch step's arm
        { type: 'branch', if: { segment: branchOn.id }, then: [{ type: 'wait', duration: 'P1D' }], else: [] },
      ],
    });
    expect(branching.status, branching.text).to.equal(201);
    expect((await admin.post(`${base}/campaigns/${branching.body.id}/activate`)).status).to.equal(200);

    const audienceRefused = expectProblem(await admin.delete(`${base}/segments/${audience.id}`), 409);
    expect(audienceRefused.detail).to.contain(`"Launch" (${broadcast.body.id}, draft)`);
    const branchRefused = expectProblem(await admin.delete(`${base}/segments/${branchOn.id}`), 409);
    expect(branchRefused.detail).to.contain(`"Follow-up" (${branching.body.id}, active)`);
    // Both segments are still there, and so are the campaigns that name them.
    expect((await admin.get(`${base}/segments/${audience.id}`)).status).to.equal(200);
    expect((await admin.get(`${base}/segments/${branchOn.id}`)).status).to.equal(200);

    expect((await admin.delete(`${base}/campaigns/${broadcast.body.id}`)).status).to.equal(204);
    expect((await admin.delete(`${base}/segments/${audience.id}`)).status).to.equal(204);
  });
});
