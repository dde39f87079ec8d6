// The campaigns pages over HTTP: the list with enrollments and 30-day sparklines of sent, human
// opens and human clicks; a campaign's flow drawn as SVG with each step's numbers; the JSON editor
// (refusals listed with their path); activate / pause / resume / archive through a page that says
// what will happen, with CSRF, roles as the API has them (any member), other workspaces' campaigns
// as 404, and hostile names and subjects inert.
import { expect } from 'chai';
import { createContact } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import { createSegment, whenReady } from '../segments/helpers.ts';
import type { Client } from '../support/client.ts';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import {
  CHROME,
  campaignMail,
  classifiedHits,
  hit,
  sentAMinuteAgo,
  suiteLanding,
  trackingOf,
} from '../tracking/support.ts';
import { createCampaign } from './support.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

function expectInert(text: string) {
  expect(text).to.not.contain('<script>alert(1)');
  expect(text).to.not.contain('<img src=x');
}

const FLOW = [
  { type: 'send', channel: 'email', subject: HOSTILE, body: '<p>Hi</p>' },
  { type: 'wait', duration: 'P2D' },
  {
    type: 'branch',
    if: { event: 'purchase', since: 'enrollment' },
    // biome-ignore lint/suspicious/noThenProperty: the branch step's arms are named then and else
    then: [{ type: 'exit' }],
    else: [{ type: 'send', channel: 'email', subject: 'Reminder', body: '<p>Still there?</p>' }],
  },
  {
    type: 'split',
    paths: [
      { weight: 1, steps: [{ type: 'wait', duration: 'PT12H' }] },
      { weight: 3, steps: [{ type: 'send', channel: 'email', subject: 'Offer', body: '<p>x</p>' }] },
    ],
  },
];

async function statusOf(client: Client, api: string, id: string) {
  return (await client.get(`${api}/campaigns/${id}`)).body.status as string;
}

describe('campaigns: console pages', function () {
  this.timeout(60_000);
  const sink = suiteSink();
  const landing = suiteLanding();

  it('lists campaigns with status, trigger, enrollments and 30-day sparklines; draws the flow with its numbers', async () => {
    const mail = await campaignMail(sink, landing.origin);
    const { admin, base: api, workspaceId, campaignId, messageId } = mail;
    await sentAMinuteAgo(messageId);
    const { links, pixel } = trackingOf(mail.html);
    await hit(pixel!, { userAgent: CHROME });
    await hit(links.get('offer')!, { userAgent: CHROME });
    await classifiedHits(mail.client, api, messageId, 2);
    const renamed = await admin.patch(`${api}/campaigns/${campaignId}`, { name: HOSTILE });
    expect(renamed.status, renamed.text).to.equal(200);
    await createCampaign(admin, api, { name: 'Drafted', steps: FLOW });

    const app = `/app/${workspaceId}`;
    const list = await consolePage(admin, `${app}/campaigns`);
    expectInert(list.text);
    expect(list.text).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x');
    expect(list.text).to.contain(`href="${app}/campaigns/${campaignId}"`);
    expect(list.text).to.contain('On each “newsletter.requested” event');
    expect(list.text).to.contain('badge-success">active');
    expect(list.text).to.contain('badge-neutral">draft');
    expect(list.text).to.contain('1 / 0 / 1');
    for (const what of ['Messages sent', 'Messages opened by a person', 'Messages clicked by a person']) {
      expect(list.text).to.match(
        new RegExp(`<svg class="sparkline"[^>]*aria-label="${what} per day over 30 days: 1 in all"`),
      );
    }

    const page = await consolePage(admin, `${app}/campaigns/${campaignId}`);
    expectInert(page.text);
    const first = /<g class="flow-step flow-send" data-step="0">[\s\S]*?<\/g>/.exec(page.text)?.[0] ?? '';
    expect(first).to.contain('Step 0 · send email');
    expect(first).to.contain('reached 1 · waiting 0');
    expect(first).to.contain('sent 1 · delivered 0');
    expect(first).to.contain('opened 1 · clicked 1');
    expect(page.text).to.contain('completed 1 · converted 0');
    // The same numbers as a table: reached, waiting, sent, delivered, human opens, human clicks.
    const cells = [1, 0, 1, 0, 1, 1].map((n) => `<td class="num">${n}</td>`).join('');
    expect(page.text).to.match(new RegExp(`<td>0</td><td>send: News</td>${cells}`));
  });

  it('draws every step of a flow: branches and split paths side by side, waits with durations, the end', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const campaign = await createCampaign(client, api, { name: 'Flow', steps: FLOW });
    const page = await consolePage(client, `/app/${workspaceId}/campaigns/${campaign.id}`);
    expectInert(page.text);
    const svg = /<svg class="flow"[\s\S]*?<\/svg>/.exec(page.text)?.[0] ?? '';
    for (const key of ['0', '1', '2', '2.then.0', '2.else.0', '3', '3.paths.0.0', '3.paths.1.0', 'end'])
      expect(svg).to.contain(`data-step="${key}"`);
    expect(svg).to.contain('Step 1 · wait</text>');
    expect(svg).to.contain('>2 days</text>');
    expect(svg).to.contain('>12 hours</text>');
    expect(svg).to.contain('if did “purchase” since enrolling');
    expect(svg).to.contain('>yes</text>');
    expect(svg).to.contain('>no</text>');
    expect(svg).to.contain('path 2 · weight 3 · 0 drew it');
    expect(svg).to.contain('&lt;script&gt;alert(1)');
    expect(page.text).to.contain('<td>2.else.0</td><td>send: Reminder</td>');
    expect(page.text).to.contain('<td>3.paths.0.0</td><td>wait: 12 hours</td>');
    // The yes and no arms sit side by side: same top, different left.
    const boxAt = (key: string) =>
      new RegExp(
        `data-step="${key.replaceAll('.', '\\.')}"><title>[^<]*</title>\\s*<rect x="([\\d.]+)" y="([\\d.]+)"`,
      ).exec(svg)!;
    const [yes, no] = [boxAt('2.then.0'), boxAt('2.else.0')];
    expect(yes[2]).to.equal(no[2]);
    expect(Number(yes[1])).to.be.lessThan(Number(no[1]));
  });

  it('creates and edits a campaign from its JSON, listing what is refused with its path', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const app = `/app/${workspaceId}`;
    const blank = await consolePage(client, `${app}/campaigns/new`);
    expect(blank.text).to.contain('&quot;eventType&quot;: &quot;signup&quot;');
    const bad = await postConsoleForm(client, `${app}/campaigns/new`, {
      _csrf: blank.token,
      definition: '{"name": ',
    });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain('not valid JSON');
    const definition = {
      name: HOSTILE,
      trigger: { type: 'event', eventType: 'signup' },
      steps: [
        { type: 'wait', duration: 'soon' },
        { type: 'send', channel: 'email', subject: '{% if %}', body: 'x' },
      ],
    };
    const refused = await postConsoleForm(client, `${app}/campaigns/new`, {
      _csrf: blank.token,
      definition: JSON.stringify(definition),
    });
    expect(refused.status).to.equal(400);
    expectInert(refused.text);
    expect(refused.text).to.contain('steps.0.duration: must be an ISO 8601 duration');
    expect((await client.get(`${api}/campaigns`)).body.total).to.equal(0);
    definition.steps[0] = { type: 'wait', duration: 'P1D' };
    const badTemplate = await postConsoleForm(client, `${app}/campaigns/new`, {
      _csrf: blank.token,
      definition: JSON.stringify(definition),
    });
    expect(badTemplate.status).to.equal(400);
    expect(badTemplate.text).to.match(/steps\.1\.subject: step 1, subject, line 1/);
    definition.steps[1] = { type: 'send', channel: 'email', subject: 'Hello', body: 'x' };
    const created = await postConsoleForm(client, `${app}/campaigns/new`, {
      _csrf: blank.token,
      definition: JSON.stringify(definition),
    });
    const page = await followRedirect(client, created);
    expect(page.text).to.contain('Draft campaign created');
    expectInert(page.text);
    const [campaign] = (await client.get(`${api}/campaigns`)).body.data;
    expect(campaign.name).to.equal(HOSTILE);
    const path = `${app}/campaigns/${campaign.id}`;

    await client.post(`${api}/campaigns/${campaign.id}/activate`);
    const edit = await consolePage(client, `${path}/edit`);
    expect(edit.text).to.contain('only its name and tracking can change');
    const json = JSON.parse(
      /<textarea[^>]*>([\s\S]*?)<\/textarea>/
        .exec(edit.text)![1]!
        .replaceAll('&quot;', '"')
        .replaceAll('&lt;', '<')
        .replaceAll('&gt;', '>')
        .replaceAll('&#39;', "'")
        .replaceAll('&amp;', '&'),
    );
    const stepsChanged = await postConsoleForm(client, `${path}/edit`, {
      _csrf: edit.token,
      definition: JSON.stringify({ ...json, steps: [{ type: 'exit' }] }),
    });
    expect(stepsChanged.status).to.equal(409);
    expect(stepsChanged.text).to.contain('takes only a new name and tracking');
    const renamed = await postConsoleForm(client, `${path}/edit`, {
      _csrf: edit.token,
      definition: JSON.stringify({ ...json, name: 'Welcome series' }),
    });
    expect((await followRedirect(client, renamed)).text).to.contain('Campaign saved.');
    const after = (await client.get(`${api}/campaigns/${campaign.id}`)).body;
    expect(after.name).to.equal('Welcome series');
    expect(after.steps).to.have.length(2);
  });

  it('activates, pauses, resumes and archives through a page that says what will happen', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    const campaign = await createCampaign(client, api, { name: HOSTILE });
    const path = `/app/${workspaceId}/campaigns/${campaign.id}`;
    const page = await consolePage(client, path);
    expect(page.text).to.contain(`href="${path}/activate"`);
    expect(page.text).to.contain(`href="${path}/archive"`);
    expect(page.text).to.not.contain(`href="${path}/pause"`);

    const confirm = await consolePage(client, `${path}/activate`);
    expectInert(confirm.text);
    expect(confirm.text).to.contain('The trigger starts enrolling contacts from now on');
    const forged = await postConsoleForm(client, `${path}/activate`, {});
    expect(forged.status).to.equal(403);
    expect(await statusOf(client, api, campaign.id)).to.equal('draft');
    const activated = await postConsoleForm(client, `${path}/activate`, { _csrf: confirm.token });
    expect((await followRedirect(client, activated)).text).to.contain('Campaign activated.');
    expect(await statusOf(client, api, campaign.id)).to.equal('active');
    await consolePage(client, `${path}/resume`, 409);

    // Roles as the API: a MEMBER may write campaigns.
    const member = await memberOf(client, workspaceId, 'MEMBER');
    const pause = await consolePage(member.client, `${path}/pause`);
    expect(pause.text).to.contain('The 0 people in the flow stay where they are');
    const paused = await postConsoleForm(member.client, `${path}/pause`, { _csrf: pause.token });
    expect((await followRedirect(member.client, paused)).text).to.contain('Campaign paused.');
    expect(await statusOf(client, api, campaign.id)).to.equal('paused');
    const pausedPage = await consolePage(client, path);
    expect(pausedPage.text).to.contain(`href="${path}/resume"`);
    expect(pausedPage.text).to.not.contain(`href="${path}/activate"`);
    const resume = await consolePage(client, `${path}/resume`);
    expect(resume.text).to.contain('people held in the flow continue');
    await followRedirect(client, await postConsoleForm(client, `${path}/resume`, { _csrf: resume.token }));
    expect(await statusOf(client, api, campaign.id)).to.equal('active');
    const archive = await consolePage(client, `${path}/archive`);
    expect(archive.text).to.contain('still in the flow exit at once');
    expect(archive.text).to.contain('cannot be activated or edited again');
    await followRedirect(client, await postConsoleForm(client, `${path}/archive`, { _csrf: archive.token }));
    expect(await statusOf(client, api, campaign.id)).to.equal('archived');
    // A transition that no longer applies, crafted by hand: refused with the service's words.
    const again = await postConsoleForm(client, `${path}/activate`, { _csrf: archive.token, _back: path });
    expect((await followRedirect(client, again)).text).to.contain(
      'Cannot activate a campaign that is archived',
    );
    await consolePage(client, `${path}/edit`, 409);
  });

  it("tells how many a broadcast will enroll, with its segment's name", async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const api = `/api/workspaces/${workspaceId}`;
    for (const email of ['a@b.test', 'c@b.test']) await createContact(client, api, { email });
    const segment = await createSegment(client, api, { field: 'email', op: 'exists' }, HOSTILE);
    await whenReady(client, api, segment.id);
    const campaign = await createCampaign(client, api, {
      trigger: { type: 'broadcast', segmentId: segment.id },
    });
    const path = `/app/${workspaceId}/campaigns/${campaign.id}`;
    const confirm = await consolePage(client, `${path}/activate`);
    expectInert(confirm.text);
    expect(confirm.text).to.contain('The 2 members of the segment “&lt;script&gt;');
    const page = await consolePage(client, path);
    expect(page.text).to.contain('Broadcast to the segment “&lt;script&gt;alert(1)');
  });

  it("answers 404 for another workspace's campaign, and changes nothing", async () => {
    const mine = await workspaceWithAdmin();
    const other = await workspaceWithAdmin();
    const theirs = await createCampaign(other.client, `/api/workspaces/${other.workspaceId}`);
    const path = `/app/${mine.workspaceId}/campaigns/${theirs.id}`;
    await consolePage(mine.client, path, 404);
    await consolePage(mine.client, `${path}/edit`, 404);
    await consolePage(mine.client, `${path}/activate`, 404);
    const list = await consolePage(mine.client, `/app/${mine.workspaceId}/campaigns`);
    expect(list.text).to.contain('No campaigns yet');
    const posted = await postConsoleForm(mine.client, `${path}/activate`, { _csrf: list.token });
    expect(posted.status).to.equal(404);
    const edited = await postConsoleForm(mine.client, `${path}/edit`, {
      _csrf: list.token,
      definition: JSON.stringify({ name: 'Mine now' }),
    });
    expect(edited.status).to.equal(404);
    expect(await statusOf(other.client, `/api/workspaces/${other.workspaceId}`, theirs.id)).to.equal('draft');
    await consolePage(mine.client, `/app/${other.workspaceId}/campaigns`, 404);
  });
});
