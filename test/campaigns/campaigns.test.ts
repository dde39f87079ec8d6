import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { workspace } from '../events/support.ts';
import { expectProblem } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { createCampaign, STEPS } from './support.ts';

/** A branch nested `depth` levels deep, on an event since enrollment. */
function nest(depth: number): Record<string, unknown> {
  const leaf = { type: 'wait', duration: 'PT1H' };
  return {
    type: 'branch',
    if: { event: 'x', since: 'enrollment' },
    // biome-ignore lint/suspicious/noThenProperty: the branch step's arm
    then: [depth > 0 ? nest(depth - 1) : leaf],
  };
}

describe('campaigns: definition and status', () => {
  describe('happy paths', () => {
    it('creates a draft with validated steps and reads it back', async () => {
      const { admin, base } = await workspace();
      const campaign = await createCampaign(admin, base);
      expect(campaign).to.include({ name: 'Welcome', status: 'draft', reentry: 'never', activatedAt: null });
      expect(campaign.steps).to.deep.equal(STEPS);
      expect((await admin.get(`${base}/campaigns/${campaign.id}`)).body).to.deep.equal(campaign);
      const list = await admin.get(`${base}/campaigns?status=draft`);
      expect(list.body).to.include({ total: 1, page: 1, limit: 50 });
    });

    it('moves draft → active ⇄ paused → archived, emitting campaign.started on activation', async () => {
      const { admin, base, workspaceId } = await workspace();
      const { id } = await createCampaign(admin, base);
      const path = `${base}/campaigns/${id}`;
      const activated = await admin.post(`${path}/activate`);
      expect(activated.body).to.include({ status: 'active' });
      expect(activated.body.activatedAt).to.be.a('string');
      expect((await admin.post(`${path}/pause`)).body.status).to.equal('paused');
      expect((await admin.post(`${path}/resume`)).body.status).to.equal('active');
      await admin.post(`${path}/pause`);
      expect((await admin.post(`${path}/activate`)).body.status).to.equal('active');
      expect((await admin.post(`${path}/archive`)).body.status).to.equal('archived');
      const started = await server().context.db.anyFirst(sql.unsafe`
        select data from outgoing_events where workspace_id = ${workspaceId} and type = 'campaign.started'`);
      expect(started).to.deep.equal([
        { campaignId: id, name: 'Welcome', status: 'active' },
        { campaignId: id, name: 'Welcome', status: 'active' },
        { campaignId: id, name: 'Welcome', status: 'active' },
      ]);
    });

    it('edits any field of a draft, only the name and tracking of a running campaign, and says so', async () => {
      const { admin, base } = await workspace();
      const { id } = await createCampaign(admin, base);
      const edited = await admin.patch(`${base}/campaigns/${id}`, {
        trigger: { type: 'event', eventType: 'purchase', where: [{ path: 'amount', op: 'gt', value: 10 }] },
        reentry: 'always',
      });
      expect(edited.status, edited.text).to.equal(200);
      expect(edited.body).to.include({ reentry: 'always' });
      await admin.post(`${base}/campaigns/${id}/activate`);
      expect((await admin.patch(`${base}/campaigns/${id}`, { name: 'Renamed' })).body.name).to.equal(
        'Renamed',
      );
      const tracked = await admin.patch(`${base}/campaigns/${id}`, {
        tracking: { opens: false, clicks: true },
      });
      expect(tracked.status, tracked.text).to.equal(200);
      const notDraft = expectProblem(await admin.patch(`${base}/campaigns/${id}`, { steps: STEPS }), 409);
      expect(notDraft.detail).to.match(/^An active campaign takes only a new name and tracking: /);
      // The served description says the same as the 409 and the 200 above.
      const operation = (await admin.get('/api/openapi')).body.paths[
        '/api/workspaces/{workspaceId}/campaigns/{campaignId}'
      ].patch;
      expect(operation.summary).to.contain('only the name and tracking of an active or paused one');
      expect(operation.responses['409'].description).to.contain('more than its name and tracking');
      expectProblem(await admin.delete(`${base}/campaigns/${id}`), 409);
      await admin.post(`${base}/campaigns/${id}/archive`);
      expectProblem(await admin.patch(`${base}/campaigns/${id}`, { name: 'x' }), 409);
      expect((await admin.delete(`${base}/campaigns/${id}`)).status).to.equal(204);
      expectProblem(await admin.get(`${base}/campaigns/${id}`), 404);
    });
  });

  describe('errors', () => {
    it('refuses invalid transitions with 409', async () => {
      const { admin, base } = await workspace();
      const { id } = await createCampaign(admin, base);
      expectProblem(await admin.post(`${base}/campaigns/${id}/pause`), 409);
      expectProblem(await admin.post(`${base}/campaigns/${id}/resume`), 409);
      await admin.post(`${base}/campaigns/${id}/archive`);
      for (const transition of ['activate', 'pause', 'resume', 'archive']) {
        expectProblem(await admin.post(`${base}/campaigns/${id}/${transition}`), 409);
      }
    });

    it('validates trigger and steps, naming the path', async () => {
      const { admin, base } = await workspace();
      const valid = { name: 'c', trigger: { type: 'event', eventType: 'x' }, steps: STEPS };
      const cases: [unknown, string][] = [
        [{ ...valid, steps: [] }, 'body.steps'],
        [{ ...valid, steps: [{ type: 'wait', duration: '2 days' }] }, 'body.steps.0.duration'],
        [{ ...valid, steps: [{ type: 'send', channel: 'fax', text: 'x' }] }, 'body.steps.0.channel'],
        [{ ...valid, steps: [{ type: 'send', channel: 'email', subject: 'x' }] }, 'body.steps.0.body'],
        [
          {
            ...valid,
            steps: [{ type: 'send', channel: 'push', title: 't', body: 'b', url: 'javascript:x' }],
          },
          'body.steps.0.url',
        ],
        [{ ...valid, trigger: { type: 'event' } }, 'body.trigger.eventType'],
        [
          {
            ...valid,
            trigger: { type: 'event', eventType: 'x', where: [{ path: 'a', op: 'bogus', value: 1 }] },
          },
          'body.trigger.where.0.op',
        ],
        [{ ...valid, trigger: { type: 'cron' } }, 'body.trigger.type'],
        [{ ...valid, reentry: 'sometimes' }, 'body.reentry'],
        [{ ...valid, name: ' ' }, 'body.name'],
        [{ ...valid, steps: [{ type: 'wait', until: { time: '25:00' } }] }, 'body.steps.0.until.time'],
        [
          { ...valid, steps: [{ type: 'wait', until: { time: '09:00', timezone: 'Mars/Base' } }] },
          'body.steps.0.until.timezone',
        ],
        [{ ...valid, steps: [{ type: 'wait', duration: 'P1D', until: { time: '09:00' } }] }, 'body.steps.0'],
        [{ ...valid, steps: [{ type: 'wait' }] }, 'body.steps.0'],
        [
          { ...valid, steps: [{ type: 'branch', if: { field: 'nope', op: 'eq', value: 1 } }] },
          'body.steps.0.if.field',
        ],
        [
          { ...valid, steps: [{ type: 'branch', if: { event: 'x', since: 'forever' } }] },
          'body.steps.0.if.since',
        ],
        [{ ...valid, steps: [{ type: 'branch', if: { segment: '' } }] }, 'body.steps.0.if.segment'],
        [
          { ...valid, steps: [{ type: 'branch', if: { segment: 's' }, else: [{ type: 'jump' }] }] },
          'body.steps.0.else.0.type',
        ],
        [{ ...valid, steps: [{ type: 'split', paths: [{ weight: 1, steps: [] }] }] }, 'body.steps.0.paths'],
        [
          {
            ...valid,
            steps: [
              {
                type: 'split',
                paths: [
                  { weight: 0, steps: [] },
                  { weight: 1, steps: [] },
                ],
              },
            ],
          },
          'body.steps.0.paths.0.weight',
        ],
        [{ ...valid, steps: [nest(3)] }, 'body.steps.0.then.0.then.0.then.0.type'],
        [{ ...valid, goal: { where: [] } }, 'body.goal.eventType'],
        [
          { ...valid, trigger: { type: 'broadcast', segmentId: 's', sendAt: 'tomorrow' } },
          'body.trigger.sendAt',
        ],
      ];
      for (const [body, path] of cases) {
        const problem = expectProblem(await admin.post(`${base}/campaigns`, body), 400) as unknown as {
          errors: { path: string }[];
        };
        expect(
          problem.errors.map((error) => error.path),
          JSON.stringify(body),
        ).to.include(path);
      }
      expectProblem(await admin.get(`${base}/campaigns/cmp_nope/enrollments?limit=500`), 400);
    });

    it('takes nested branch and split steps, wait until, a goal and a broadcast trigger; unknown segments are 404', async () => {
      const { admin, base } = await workspace();
      const segment = await admin.post(`${base}/segments`, {
        name: 's',
        rules: { attribute: 'a', op: 'eq', value: 1 },
      });
      const steps = [
        { type: 'wait', until: { time: '09:00', timezone: 'Europe/Paris' } },
        nest(2),
        // biome-ignore lint/suspicious/noThenProperty: the branch step's arm
        { type: 'branch', if: { segment: segment.body.id }, then: [{ type: 'exit' }] },
        {
          type: 'split',
          paths: [
            { weight: 3, steps: [STEPS[0]] },
            { weight: 1, steps: [] },
          ],
        },
      ];
      const created = await admin.post(`${base}/campaigns`, {
        name: 'n',
        trigger: { type: 'broadcast', segmentId: segment.body.id },
        steps,
        goal: { eventType: 'purchase' },
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.goal).to.deep.equal({ eventType: 'purchase' });
      expect(created.body.steps[2]).to.deep.equal({ ...steps[2], else: [] });
      const unknown = await admin.post(`${base}/campaigns`, {
        name: 'n',
        trigger: { type: 'event', eventType: 'x' },
        steps: [{ type: 'branch', if: { segment: 'seg_nope' } }],
      });
      expectProblem(unknown, 404);
      expect(unknown.body.detail).to.include('step 0');
      const cleared = await admin.patch(`${base}/campaigns/${created.body.id}`, { goal: null });
      expect(cleared.body.goal).to.equal(null);
    });

    it('refuses a send step whose template does not parse, naming the step and the line, on create and update', async () => {
      const { admin, base } = await workspace();
      const broken = { type: 'send', channel: 'email', subject: 'Hi', body: '<p>a</p>\n<p>{% if x %}</p>' };
      const steps = [
        STEPS[0],
        {
          type: 'split',
          paths: [
            { weight: 1, steps: [] },
            { weight: 1, steps: [{ type: 'wait', duration: 'PT1H' }, broken] },
          ],
        },
      ];
      const created = await admin.post(`${base}/campaigns`, {
        name: 'c',
        trigger: { type: 'event', eventType: 'x' },
        steps,
      });
      const problem = expectProblem(created, 400) as unknown as {
        errors: { path: string; message: string }[];
      };
      expect(problem.errors).to.have.length(1);
      expect(problem.errors[0].path).to.equal('body.steps.1.paths.1.steps.1.body');
      expect(problem.errors[0].message).to.match(/^step 1\.paths\.1\.1, body, line 2, column \d+: /);
      const telegram = { type: 'send', channel: 'telegram', text: 'Hello {{ name | nope }}' };
      const { id } = await createCampaign(admin, base);
      const updated = await admin.patch(`${base}/campaigns/${id}`, { steps: [telegram] });
      const updateProblem = expectProblem(updated, 400) as unknown as { errors: { path: string }[] };
      expect(updateProblem.errors[0].path).to.equal('body.steps.0.text');
      expect((await admin.get(`${base}/campaigns/${id}`)).body.steps).to.deep.equal(STEPS);
    });

    it('refuses a PATCH with nothing to change, like segments and scoring rules', async () => {
      const { admin, base } = await workspace();
      const { id } = await createCampaign(admin, base);
      const empty = await admin.patch(`${base}/campaigns/${id}`, {});
      expectProblem(empty, 400);
      expect(empty.body.errors).to.deep.equal([
        {
          path: 'body',
          message: 'nothing to change: send at least one of name, trigger, steps, reentry, goal, tracking',
        },
      ]);
    });

    it('answers 404 for an unknown segment trigger and unknown campaigns', async () => {
      const { admin, base } = await workspace();
      const problem = expectProblem(
        await admin.post(`${base}/campaigns`, {
          name: 'c',
          trigger: { type: 'segment_entered', segmentId: 'seg_nope' },
          steps: STEPS,
        }),
        404,
      );
      expect(problem.detail).to.include('trigger.segmentId');
      expectProblem(await admin.get(`${base}/campaigns/cmp_nope`), 404);
      expectProblem(await admin.post(`${base}/campaigns/cmp_nope/activate`), 404);
      expectProblem(await admin.get(`${base}/campaigns/cmp_nope/enrollments`), 404);
    });
  });

  describe('security', () => {
    it('needs campaigns:read and campaigns:write', async () => {
      const { admin, base, withScopes } = await workspace();
      const campaign = await createCampaign(admin, base);
      const reader = await withScopes(['campaigns:read']);
      const writer = await withScopes(['campaigns:write']);
      expect(expectProblem(await writer.get(`${base}/campaigns`), 403).detail).to.include('campaigns:read');
      expect(
        expectProblem(await reader.post(`${base}/campaigns/${campaign.id}/activate`), 403).detail,
      ).to.include('campaigns:write');
      expect((await reader.get(`${base}/campaigns/${campaign.id}/enrollments`)).status).to.equal(200);
    });

    it("answers 404 for another workspace's campaigns", async () => {
      const mine = await workspace();
      const theirs = await workspace();
      const campaign = await createCampaign(theirs.admin, theirs.base);
      for (const path of ['', '/enrollments']) {
        expectProblem(await mine.admin.get(`${mine.base}/campaigns/${campaign.id}${path}`), 404);
      }
      expectProblem(await mine.admin.post(`${mine.base}/campaigns/${campaign.id}/activate`), 404);
      expectProblem(await mine.admin.patch(`${mine.base}/campaigns/${campaign.id}`, { name: 'x' }), 404);
      expectProblem(await mine.admin.delete(`${mine.base}/campaigns/${campaign.id}`), 404);
    });
  });
});
