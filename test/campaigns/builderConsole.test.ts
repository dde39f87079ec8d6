// The campaign builder over HTTP, as a browser without JavaScript uses it: every change of the
// flow's shape (add a step here, remove, up, down, add a path) is a submit button that re-renders
// the form with the whole draft, nothing is saved until "Save", and what is saved is what the API
// then returns. Refusals (the API's schema and services) are shown at the field their path names,
// with a summary linking to it; CSRF, roles (any member writes campaigns, as in the API), other
// workspaces' campaigns as 404, and hostile names inert.
import { expect } from 'chai';
import { createSegment } from '../segments/helpers.ts';
import { expectInert, followRedirect, postConsoleForm } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { consolePage, formFields, press, step } from './builderSupport.ts';
import { createCampaign } from './support.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

/** The input (or step fieldset) with this id, and the refusals listed under it. */
function errorsAt(page: string, id: string): string[] {
  const escaped = id.replace(/[[\].]/g, '\\$&');
  const list = new RegExp(`<ul class="field-errors" id="${escaped}-errors">([\\s\\S]*?)</ul>`).exec(
    page,
  )?.[1];
  return [...(list ?? '').matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]!);
}

describe('campaigns: the builder form', function () {
  this.timeout(60_000);

  it('builds a campaign with a branch and a split through form posts, and the API returns the same definition', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const app = `/app/${workspaceId}`;
    const list = await consolePage(client, `${app}/campaigns`);
    expect(list.text).to.contain(`href="${app}/campaigns/new/form"`);
    let page = await consolePage(client, `${app}/campaigns/new/form`);
    expect(page.text).to.contain(`href="${app}/campaigns/new"`);
    page = await step(client, page, 'add:steps@0:send', {
      name: 'Onboarding',
      'trigger.eventType': 'signup',
    });
    expect(page.text).to.match(/<select id="steps\[0\]\.channel" name="steps\[0\]\.channel" autofocus>/);
    page = await step(client, page, 'add:steps@1:branch', {
      'steps[0].subject': 'Welcome, {{ contact.firstName }}',
      'steps[0].body': '<p>Hello</p>',
    });
    page = await step(client, page, 'add:steps[1].then@0:exit', { 'steps[1].if.event': 'purchase' });
    page = await step(client, page, 'add:steps[1].else@0:wait');
    page = await step(client, page, 'add:steps@2:split', {
      'steps[1].else[0].duration': '36',
      'steps[1].else[0].durationUnit': 'hours',
    });
    page = await step(client, page, 'add:steps[2].paths[1].steps@0:send', {
      'steps[2].paths[0].weight': '3',
    });
    page = await step(client, page, 'addPath:steps[2]', {
      'steps[2].paths[1].steps[0].subject': 'Offer',
      'steps[2].paths[1].steps[0].body': 'Plain text offer',
      'steps[2].paths[1].steps[0].preheader': 'Ten percent off',
    });
    expect(page.text).to.contain('Path 3');
    page = await step(client, page, 'removePath:steps[2]@2');
    expect(page.text).to.not.contain('Path 3');
    expect((await client.get(`${api}/campaigns`)).body.total, 'nothing saved before Save').to.equal(0);

    const saved = await press(client, page, 'save', {
      reentry: 'after_completion',
      'goal.eventType': 'purchase',
      'pacing.frequencyCap.count': '3',
      'pacing.frequencyCap.per': '1',
      'pacing.frequencyCap.perUnit': 'weeks',
      'pacing.quietHours.start': '22:00',
      'pacing.quietHours.end': '07:00',
    });
    const shown = await followRedirect(client, saved);
    expect(shown.text).to.contain(
      'Draft campaign created. The workspace’s frequency cap and quiet hours were changed.',
    );
    expect((await client.get(`${api}/campaign-pacing`)).body).to.deep.include({
      frequencyCap: { count: 3, per: 'P1W' },
      quietHours: { start: '22:00', end: '07:00' },
    });
    expect(await shown.text).to.contain('<svg class="flow"');
    const [campaign] = (await client.get(`${api}/campaigns`)).body.data;
    const expected = {
      name: 'Onboarding',
      trigger: { type: 'event', eventType: 'signup' },
      steps: [
        { type: 'send', channel: 'email', subject: 'Welcome, {{ contact.firstName }}', body: '<p>Hello</p>' },
        {
          type: 'branch',
          if: { event: 'purchase', since: 'enrollment' },
          // biome-ignore lint/suspicious/noThenProperty: the branch step's arms are named then and else
          then: [{ type: 'exit' }],
          else: [{ type: 'wait', duration: 'PT36H' }],
        },
        {
          type: 'split',
          paths: [
            { weight: 3, steps: [] },
            {
              weight: 1,
              steps: [
                {
                  type: 'send',
                  channel: 'email',
                  subject: 'Offer',
                  body: 'Plain text offer',
                  preheader: 'Ten percent off',
                },
              ],
            },
          ],
        },
      ],
      reentry: 'after_completion',
      goal: { eventType: 'purchase' },
      tracking: { opens: true, clicks: true },
    };
    expect(campaign).to.include({ name: expected.name, reentry: expected.reentry, status: 'draft' });
    expect({
      ...expected,
      trigger: campaign.trigger,
      steps: campaign.steps,
      goal: campaign.goal,
    }).to.deep.equal(expected);

    // Editing it shows the same definition in the form; saving unchanged keeps it.
    const edit = await consolePage(client, `${app}/campaigns/${campaign.id}/form`);
    expect(formFields(edit.text)).to.include({
      'steps[1].else[0].duration': '36',
      'steps[1].else[0].durationUnit': 'hours',
      'steps[2].paths[0].weight': '3',
      'steps[1].if.kind': 'event',
    });
    const again = await press(client, edit, 'save');
    expect((await followRedirect(client, again)).text).to.contain('Nothing changed.');
    const after = (await client.get(`${api}/campaigns/${campaign.id}`)).body;
    expect(after.updatedAt).to.equal(campaign.updatedAt);
    // A change is saved (and the pace, unchanged, is not written again).
    const renamed = await press(client, edit, 'save', { name: 'Onboarding, take two' });
    const savedAgain = await followRedirect(client, renamed);
    expect(savedAgain.text).to.contain('Draft saved.');
    expect(savedAgain.text, 'the pace unchanged').to.not.contain('quiet hours were changed');
    const renamedCampaign = (await client.get(`${api}/campaigns/${campaign.id}`)).body;
    expect(renamedCampaign.name).to.equal('Onboarding, take two');
    expect(renamedCampaign.steps).to.deep.equal(campaign.steps);
    expect(renamedCampaign.goal).to.deep.equal(campaign.goal);
  });

  it('adds, removes and moves steps with buttons alone, saving nothing until Save', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    let page = await consolePage(client, `${app}/campaigns/new/form`);
    page = await step(client, page, 'add:steps@0:wait');
    page = await step(client, page, 'add:steps@1:exit', { 'steps[0].duration': '2' });
    page = await step(client, page, 'add:steps@1:send');
    const types = (text: string) =>
      [...text.matchAll(/name="steps\[(\d+)\]\.type" value="(\w+)"/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(types(page.text)).to.deep.equal(['0:wait', '1:send', '2:exit']);
    page = await step(client, page, 'down:steps[0]', { 'steps[1].subject': 'Moved' });
    expect(types(page.text)).to.deep.equal(['0:send', '1:wait', '2:exit']);
    // The values moved with their step.
    expect(formFields(page.text)).to.include({ 'steps[0].subject': 'Moved', 'steps[1].duration': '2' });
    page = await step(client, page, 'up:steps[2]');
    expect(types(page.text)).to.deep.equal(['0:send', '1:exit', '2:wait']);
    page = await step(client, page, 'remove:steps[1]');
    expect(types(page.text)).to.deep.equal(['0:send', '1:wait']);
    // Moving past the ends, and paths that name nothing, change nothing.
    page = await step(client, page, 'up:steps[0]');
    page = await step(client, page, 'remove:steps[9]');
    page = await step(client, page, 'add:steps[0].then@0:exit');
    expect(types(page.text)).to.deep.equal(['0:send', '1:wait']);
    // The JSON view follows the draft, and a definition pasted there fills the form.
    expect(page.text).to.contain('&quot;subject&quot;: &quot;Moved&quot;');
    page = await step(client, page, 'json', {
      json: JSON.stringify({
        name: 'From JSON',
        trigger: { type: 'event', eventType: 'x' },
        steps: [{ type: 'exit' }],
      }),
    });
    expect(types(page.text)).to.deep.equal(['0:exit']);
    expect(formFields(page.text).name).to.equal('From JSON');
    const broken = await press(client, page, 'json', { json: '{"name": ' });
    expect(broken.status).to.equal(400);
    expect(errorsAt(broken.text, 'json')[0]).to.contain('is not valid JSON');
    expect((await client.get(`/api/workspaces/${workspaceId}/campaigns`)).body.total).to.equal(0);
  });

  it('shows each refusal at the step and field its path names, with a summary linking to it', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    let page = await consolePage(client, `${app}/campaigns/new/form`);
    page = await step(client, page, 'add:steps@0:wait');
    page = await step(client, page, 'add:steps@1:branch');
    page = await step(client, page, 'add:steps[1].then@0:send');
    const refused = await press(client, page, 'save', {
      name: 'Refused',
      'trigger.eventType': 'signup',
      'steps[0].duration': 'soon',
      'steps[1].if.event': 'purchase',
      'steps[1].then[0].subject': '',
      'steps[1].then[0].body': 'x',
    });
    expect(refused.status).to.equal(400);
    expect(errorsAt(refused.text, 'steps[1].then[0].subject')).to.deep.equal(['must not be blank']);
    expect(errorsAt(refused.text, 'steps[0].duration')[0]).to.contain('whole number');
    expect(refused.text).to.match(
      /<input id="steps\[1\]\.then\[0\]\.subject" name="steps\[1\]\.then\[0\]\.subject" value="" type="text" size="40" autocomplete="off" aria-invalid="true" aria-describedby="steps\[1\]\.then\[0\]\.subject-errors">/,
    );
    expect(refused.text).to.contain(
      '<li><a href="#steps[1].then[0].subject">Step 1.then.0, Subject</a>: must not be blank</li>',
    );
    // The service's own refusal (a template that does not parse) lands at its field too.
    const template = await press(client, { ...refused, token: page.token }, 'save', {
      'steps[0].duration': '1',
      'steps[1].then[0].subject': 'Hi {% if %}',
    });
    expect(template.status).to.equal(400);
    expect(errorsAt(template.text, 'steps[1].then[0].subject')[0]).to.match(
      /^step 1\.then\.0, subject, line 1/,
    );
    expect(errorsAt(template.text, 'steps[0].duration')).to.deep.equal([]);
    // A rule that is not JSON; quiet hours that start when they end (the workspace's pace).
    const rule = await press(client, { ...refused, token: page.token }, 'save', {
      'steps[0].duration': '1',
      'steps[1].if.kind': 'rule',
      'steps[1].if': '{"all": [',
      'pacing.quietHours.start': '22:00',
      'pacing.quietHours.end': '22:00',
    });
    expect(rule.status).to.equal(400);
    expect(errorsAt(rule.text, 'steps[1].if')[0]).to.contain('is not valid JSON');
    expect(errorsAt(rule.text, 'pacing')).to.deep.equal(['start and end must differ']);
    // A refusal about a whole step (a split left with one path, posted by hand) is shown at the step.
    const split = await step(client, page, 'add:steps@2:split');
    const onePath = Object.fromEntries(
      Object.entries(formFields(split.text)).filter(([name]) => !name.startsWith('steps[2].paths[1]')),
    );
    const refusedSplit = await postConsoleForm(client, `${app}/campaigns/new/form`, {
      ...onePath,
      action: 'save',
      _csrf: page.token,
    });
    expect(refusedSplit.status).to.equal(400);
    expect(errorsAt(refusedSplit.text, 'steps[2]')).to.deep.equal(['must hold at least two paths']);
    expect(refusedSplit.text).to.contain('<a href="#steps[2]">Step 2</a>: must hold at least two paths');
    expect((await client.get(`/api/workspaces/${workspaceId}/campaigns`)).body.total).to.equal(0);
  });

  it('refuses a form without its CSRF token, lets a MEMBER build as the API does, and 404s other workspaces', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const app = `/app/${workspaceId}`;
    const page = await consolePage(client, `${app}/campaigns/new/form`);
    const fields = { ...formFields(page.text), name: 'Forged', 'trigger.eventType': 'x', action: 'save' };
    const forged = await client.request('POST', `${app}/campaigns/new/form`, {
      body: new URLSearchParams({ ...fields, _csrf: 'x'.repeat(page.token.length) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(forged.status).to.equal(403);
    expect((await client.get(`${api}/campaigns`)).body.total).to.equal(0);

    const member = await memberOf(client, workspaceId, 'MEMBER');
    let mine = await consolePage(member.client, `${app}/campaigns/new/form`);
    mine = await step(member.client, mine, 'add:steps@0:exit');
    const created = await press(member.client, mine, 'save', {
      name: 'By a member',
      'trigger.eventType': 'x',
    });
    expect((await followRedirect(member.client, created)).text).to.contain('Draft campaign created.');

    const other = await workspaceWithAdmin();
    const theirs = await createCampaign(other.client, `/api/workspaces/${other.workspaceId}`);
    const path = `${app}/campaigns/${theirs.id}/form`;
    await consolePage(client, path, 404);
    const posted = await postConsoleForm(client, path, { ...fields, _csrf: page.token, name: 'Mine now' });
    expect(posted.status).to.equal(404);
    expect(
      (await other.client.get(`/api/workspaces/${other.workspaceId}/campaigns/${theirs.id}`)).body.name,
    ).to.equal('Welcome');
  });

  it('answers crafted fields with the form or a 4xx, never a 500, and saves nothing', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const app = `/app/${workspaceId}`;
    const page = await consolePage(client, `${app}/campaigns/new/form`);
    let deep = 'steps[0]';
    const nested: Record<string, string> = {};
    for (let level = 0; level < 200; level++) {
      nested[`${deep}.type`] = 'branch';
      deep = `${deep}.then[0]`;
    }
    const crafted: Record<string, string>[] = [
      { action: 'add:steps@99999999999999999999:send' },
      { action: 'up:steps[-1]' },
      { action: 'removePath:steps[0]@x' },
      { action: 'add:steps@0:nothing' },
      {
        action: 'save',
        'steps[0].type': 'send',
        'steps[0].channel': 'carrier-pigeon',
        'steps[0].ttlSeconds': '1e9',
      },
      {
        action: 'save',
        'steps[0].type': 'wait',
        'steps[0].wait': 'forever',
        'steps[0].durationUnit': 'centuries',
      },
      { action: 'save', 'steps[0].type': 'split', 'steps[0].paths[0].weight': '1e400' },
      {
        action: 'save',
        'trigger.type': 'broadcast',
        'trigger.sendAt': 'tomorrow',
        'pacing.frequencyCap.count': '-1',
      },
      { action: 'save', ...nested },
      { action: 'json', json: '[1, 2]' },
    ];
    for (const fields of crafted) {
      const response = await postConsoleForm(client, `${app}/campaigns/new/form`, {
        ...fields,
        _csrf: page.token,
      });
      expect(
        response.status,
        `${JSON.stringify(fields).slice(0, 200)}: ${response.text.slice(0, 300)}`,
      ).to.be.oneOf([200, 400]);
      expectInert(response.text);
    }
    // Branches nested past the schema's limit are read one level past it, not 200 deep.
    const tooDeep = await postConsoleForm(client, `${app}/campaigns/new/form`, {
      ...nested,
      _csrf: page.token,
    });
    expect(tooDeep.text.match(/\.type" value="branch"/g)).to.have.length(5);
    expect((await client.get(`/api/workspaces/${workspaceId}/campaigns`)).body.total).to.equal(0);
  });

  it('keeps hostile names inert, and offers a running campaign only its name and tracking', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const app = `/app/${workspaceId}`;
    const segment = await createSegment(client, api, { field: 'email', op: 'exists' }, HOSTILE);
    const campaign = await createCampaign(client, api, {
      name: HOSTILE,
      trigger: { type: 'broadcast', segmentId: segment.id, sendAt: '2030-01-02T03:04:05Z' },
      steps: [
        { type: 'send', channel: 'email', subject: HOSTILE, body: `<a href="javascript:alert(3)">x</a>` },
        // biome-ignore lint/suspicious/noThenProperty: the branch step's arms are named then and else
        { type: 'branch', if: { segment: segment.id }, then: [], else: [{ type: 'exit' }] },
      ],
    });
    const edit = await consolePage(client, `${app}/campaigns/${campaign.id}/form`);
    expectInert(edit.text);
    expect(edit.text).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x');
    expect(formFields(edit.text)).to.include({
      'trigger.type': 'broadcast',
      'trigger.segmentId': segment.id,
      'trigger.sendAt': '2030-01-02T03:04:05',
      'steps[1].if.kind': 'segment',
      'steps[1].if.segment': segment.id,
      'steps[0].subject': HOSTILE,
    });
    const refused = await press(client, edit, 'save', { 'steps[0].subject': '' });
    expectInert(refused.text);
    const saved = await press(client, edit, 'save');
    await followRedirect(client, saved);
    expect((await client.get(`${api}/campaigns/${campaign.id}`)).body.trigger).to.deep.equal({
      type: 'broadcast',
      segmentId: segment.id,
      sendAt: '2030-01-02T03:04:05Z',
    });

    await client.post(`${api}/campaigns/${campaign.id}/activate`);
    const running = await consolePage(client, `${app}/campaigns/${campaign.id}/form`);
    expect(running.text).to.contain('This campaign is active: its trigger and steps cannot change');
    expect(running.text).to.not.contain('name="steps[0].type"');
    const renamed = await press(client, running, 'save', { name: 'Renamed', 'tracking.clicks': '' });
    expect((await followRedirect(client, renamed)).text).to.contain('Campaign saved.');
    const after = (await client.get(`${api}/campaigns/${campaign.id}`)).body;
    expect(after.name).to.equal('Renamed');
    expect(after.tracking).to.deep.equal({ opens: true, clicks: false });
  });
});
