// The template editor of a send step over HTTP: fields from the channel's step schema, saved through
// the API's update (drafts only); the preview rendered for a picked contact, live (htmx's endpoint)
// and without JavaScript (the Preview button); Liquid problems at their line and column; the
// variables listed; a test send that reaches the SMTP sink, counts in no report, is audited and
// rate-limited; CSRF, roles, other workspaces' ids as 404; hostile templates inert outside the
// sandboxed frame.
import { expect } from 'chai';
import { FakeTwilio } from '../channels/sms/fakeTwilio.ts';
import { createContact } from '../events/support.ts';
import { suiteSink } from '../messages/support.ts';
import type { Client } from '../support/client.ts';
import { consolePage, expectInert, followRedirect, postConsoleForm, url } from '../support/console.ts';
import { workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { createCampaign, emailChannel } from './support.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
const HOSTILE_BODY =
  '<p>Hi {{ contact.firstName }}</p><script>document.title="ran"</script><a href="javascript:alert(3)">x</a>';

const STEPS = [
  {
    type: 'send',
    channel: 'email',
    subject: 'Hello {{ contact.firstName }}',
    body: '<p>Hi {{ contact.firstName }}</p>',
  },
  { type: 'wait', duration: 'P1D' },
  { type: 'send', channel: 'sms', text: 'Hi {{ contact.firstName }}' },
];

/** The page without its preview frames (checked apart), for expectInert. */
function withoutFrames(page: string): string {
  return page.replace(/<iframe sandbox=""[^>]*><\/iframe>/g, '');
}

async function setUp() {
  const { client, user, workspaceId } = await workspaceWithAdmin();
  const api = `/api/workspaces/${workspaceId}`;
  const campaign = await createCampaign(client, api, {
    name: 'Welcome',
    trigger: { type: 'event', eventType: 'signup' },
    steps: STEPS,
  });
  const contact = await createContact(client, api, {
    email: 'ada@example.com',
    firstName: 'Ada',
    attributes: { plan: 'pro', 'favourite colour': 'green' },
  });
  const page = `/app/${workspaceId}/campaigns/${campaign.id}/steps/0/template`;
  return {
    client,
    user,
    workspaceId,
    api,
    campaignId: campaign.id as string,
    contactId: contact.id as string,
    page,
  };
}

function fields(token: string, values: Record<string, string>) {
  const out: Record<string, string> = { _csrf: token };
  for (const [name, value] of Object.entries(values)) out[`step.${name}`] = value;
  return out;
}

async function stepOf(client: Client, api: string, campaignId: string, index: number) {
  const response = await client.get(`${api}/campaigns/${campaignId}`);
  return response.body.steps[index];
}

describe('campaigns: the template editor', function () {
  this.timeout(60_000);
  const sink = suiteSink();
  const twilio = new FakeTwilio();
  before(() => twilio.start());
  after(() => twilio.stop());

  it('shows the channel’s fields and saves an edit through the API’s update, audited', async () => {
    const ws = await setUp();
    const campaignPage = await consolePage(ws.client, `/app/${ws.workspaceId}/campaigns/${ws.campaignId}`);
    expect(campaignPage.text).to.contain(`href="${ws.page}">Edit`);
    expect(campaignPage.text).to.contain(`/steps/2/template">Edit`);
    const page = await consolePage(ws.client, ws.page);
    expect(page.text).to.contain('<h1>Step 0: Email template</h1>');
    expect(page.text).to.match(
      /<input type="text" id="field-subject" name="step.subject" required[^>]*value="Hello \{\{ contact.firstName \}\}"/,
    );
    expect(page.text).to.match(/<textarea id="field-body" name="step.body" required/);
    expect(page.text).to.contain(
      '<label for="field-preheader">Preheader <span class="muted">(optional)</span>',
    );
    const saved = await postConsoleForm(ws.client, ws.page, {
      ...fields(page.token, {
        subject: 'Welcome, {{ contact.firstName }}',
        body: '<p>Line one</p>\n<p>{{ contact.attributes.plan }}</p>',
        preheader: 'Your plan',
      }),
      action: 'save',
    });
    const after = await followRedirect(ws.client, saved);
    expect(after.text).to.contain('Template saved.');
    expect(await stepOf(ws.client, ws.api, ws.campaignId, 0)).to.deep.equal({
      type: 'send',
      channel: 'email',
      subject: 'Welcome, {{ contact.firstName }}',
      body: '<p>Line one</p>\n<p>{{ contact.attributes.plan }}</p>',
      preheader: 'Your plan',
    });
    // The other steps stay as they were.
    expect(await stepOf(ws.client, ws.api, ws.campaignId, 2)).to.deep.equal(STEPS[2]);
    const audit = await ws.client.get(`${ws.api}/audit?action=campaign.updated`);
    expect(audit.status, audit.text).to.equal(200);
    expect(audit.body[0].after.steps[0].preheader).to.equal('Your plan');

    // Another channel's step: its own fields, from its schema.
    const sms = await consolePage(ws.client, ws.page.replace('/steps/0/', '/steps/2/'));
    expect(sms.text).to.contain('<h1>Step 2: SMS template</h1>');
    expect(sms.text).to.match(/<textarea id="field-text" name="step.text"/);
    expect(sms.text).to.not.contain('field-subject');
  });

  it('previews for a contact found by email, with their values and the variables listed', async () => {
    const ws = await setUp();
    const short = await consolePage(ws.client, `${ws.page}?q=ad`);
    expect(short.text).to.contain('Type at least 3 characters');
    expect(short.text).to.not.contain('?contact=');
    const search = await consolePage(ws.client, `${ws.page}?q=ada%40`);
    expect(search.text).to.contain(`href="${ws.page}?contact=${ws.contactId}">ada@example.com</a>`);
    const page = await consolePage(ws.client, `${ws.page}?contact=${ws.contactId}`);
    expect(page.text).to.contain('Previewing for <strong>ada@example.com</strong> (Ada)');
    expect(page.text).to.match(/<dt>Subject<\/dt><dd>Hello Ada<\/dd>/);
    const frames = [...page.text.matchAll(/<iframe sandbox=""([^>]*)><\/iframe>/g)].map((m) => m[1]!);
    expect(frames).to.have.length(2);
    expect(frames[0]).to.contain('title="HTML at desktop width"');
    expect(frames[1]).to.contain('title="HTML at phone width (375 px)"');
    for (const frame of frames) expect(frame).to.contain('&lt;p&gt;Hi Ada&lt;/p&gt;');
    expect(page.text).to.contain('<pre class="message-text">Hi Ada</pre>');
    // The variables: the contact's fields and attributes (a name Liquid must quote, quoted), the event.
    expect(page.text).to.contain(
      '<td><code>{{ contact.firstName }}</code></td><td>The contact’s own field</td><td>Ada</td>',
    );
    expect(page.text).to.contain(
      '<code>{{ contact.attributes.plan }}</code></td><td>An attribute of contacts</td><td>pro</td>',
    );
    expect(page.text).to.contain('<code>{{ contact.attributes[&quot;favourite colour&quot;] }}</code>');
    expect(page.text).to.contain(
      '<code>{{ event.type }}</code></td><td>The event that enrolled the contact</td><td>signup</td>',
    );
    expect(page.text).to.contain('<code>{{ unsubscribe_url }}</code>');

    // The live preview: the form as typed (not saved), answered with the preview section alone.
    const live = await postConsoleForm(ws.client, `${ws.page}/preview`, {
      ...fields(page.token, {
        subject: 'On {{ contact.attributes.plan }}',
        body: 'Plain {{ contact.email }}',
      }),
      contact: ws.contactId,
    });
    expect(live.status, live.text).to.equal(200);
    expect(live.text).to.match(/^<section id="template-preview"/);
    expect(live.text).to.contain('<dd>On pro</dd>');
    expect(live.text).to.contain('Plain ada@example.com');
    expect((await stepOf(ws.client, ws.api, ws.campaignId, 0)).subject).to.equal(
      'Hello {{ contact.firstName }}',
    );

    // Without JavaScript, the Preview button re-renders the whole page with the values posted.
    const noJs = await postConsoleForm(ws.client, ws.page, {
      ...fields(page.token, { subject: 'Posted {{ contact.firstName }}', body: '<p>x</p>' }),
      contact: ws.contactId,
      action: 'preview',
    });
    expect(noJs.status, noJs.text).to.equal(200);
    expect(noJs.text).to.contain('<dd>Posted Ada</dd>');
    expect(noJs.text).to.contain('value="Posted {{ contact.firstName }}"');
    expect((await stepOf(ws.client, ws.api, ws.campaignId, 0)).subject).to.equal(
      'Hello {{ contact.firstName }}',
    );
  });

  it('reports a Liquid error at its field, line and column, live and on save', async () => {
    const ws = await setUp();
    const page = await consolePage(ws.client, ws.page);
    const broken = {
      subject: 'Fine',
      body: '<p>one</p>\n<p>two</p>\n<p>{{ contact.firstName | nosuchfilter }}</p>',
    };
    const live = await postConsoleForm(ws.client, `${ws.page}/preview`, {
      ...fields(page.token, broken),
      contact: '',
    });
    expect(live.status).to.equal(200);
    expect(live.text).to.match(/<li>Body, line 3, column 4: [^<]*nosuchfilter/);
    const unclosed = await postConsoleForm(ws.client, `${ws.page}/preview`, {
      ...fields(page.token, { subject: 'Hi {{ contact.firstName', body: '<p>x</p>' }),
    });
    expect(unclosed.text).to.match(/<li>Subject, line 1, column 4: /);
    const saved = await postConsoleForm(ws.client, ws.page, {
      ...fields(page.token, broken),
      action: 'save',
    });
    expect(saved.status).to.equal(400);
    expect(saved.text).to.contain('The template was not saved');
    expect(saved.text).to.match(/<p class="field-problem" id="field-body-problem">Body, line 3, column 4: /);
    expect(saved.text).to.contain('aria-invalid="true" aria-describedby="field-body-problem"');
    expect((await stepOf(ws.client, ws.api, ws.campaignId, 0)).body).to.equal(
      '<p>Hi {{ contact.firstName }}</p>',
    );
    // The schema's own rules are named too.
    const blank = await postConsoleForm(ws.client, ws.page, {
      ...fields(page.token, { subject: ' ', body: '<p>x</p>' }),
      action: 'save',
    });
    expect(blank.status).to.equal(400);
    expect(blank.text).to.contain('Subject: must not be blank');
  });

  it('sends a test to a typed address through the real channel, in no report, audited and rate-limited', async () => {
    const ws = await setUp();
    await emailChannel(ws.client, ws.api, sink.port);
    const withLink = [
      { ...STEPS[0], body: '<p>Hi {{ contact.firstName }}</p><a href="{{ unsubscribe_url }}">Leave</a>' },
    ];
    const patched = await ws.client.patch(`${ws.api}/campaigns/${ws.campaignId}`, { steps: withLink });
    expect(patched.status, patched.text).to.equal(200);
    const page = await consolePage(ws.client, `${ws.page}?contact=${ws.contactId}`);
    // The form as the page has it: the picked contact, and the page a refusal goes back to.
    const testSend = (to: string) =>
      postConsoleForm(ws.client, `${ws.page}/test`, {
        _csrf: page.token,
        _back: `${ws.page}?contact=${ws.contactId}`,
        contact: ws.contactId,
        to,
      });
    expect(page.text).to.contain('<input id="test-to" name="to" type="email" required');
    const before = (await sink.received()).length;
    const sent = await testSend('tester@example.org');
    const after = await followRedirect(ws.client, sent);
    expect(sent.headers.get('location')).to.equal(`${ws.page}?contact=${ws.contactId}`);
    expect(after.text).to.match(/Test sent to tester@example.org \(250 /);
    const received = (await sink.received()).slice(before);
    expect(received).to.have.length(1);
    expect(received[0]!.to).to.deep.equal(['tester@example.org']);
    expect(received[0]!.mail.subject).to.equal('[Test] Hello Ada');
    expect(received[0]!.mail.html).to.contain('<p>Hi Ada</p>');
    expect(received[0]!.headers['list-unsubscribe']).to.equal(undefined);
    expect(received[0]!.headers['x-switchboard-message-id']).to.match(/^test_/);
    // Its unsubscribe link is signed for no message: following it unsubscribes nobody.
    const leave = new URL(
      /href="([^"]+)">Leave/.exec(String(received[0]!.mail.html))![1]!.replaceAll('&amp;', '&'),
    );
    const followed = await fetch(url(leave.pathname + leave.search), { redirect: 'manual' });
    expect(followed.status).to.equal(404);
    const subscriptions = await ws.client.get(`${ws.api}/contacts/${ws.contactId}/subscriptions`);
    expect(JSON.stringify(subscriptions.body)).to.not.contain('unsubscribed');

    const report = await ws.client.get(`${ws.api}/campaigns/${ws.campaignId}/report`);
    expect(report.status, report.text).to.equal(200);
    expect(report.body.messages.sent).to.equal(0);
    expect(report.body.messages.queued).to.equal(0);
    const messages = await ws.client.get(`${ws.api}/messages?campaignId=${ws.campaignId}`);
    expect(messages.body.data ?? []).to.deep.equal([]);
    const audit = await ws.client.get(`${ws.api}/audit?action=campaign.testSent`);
    expect(audit.body).to.have.length(1);
    expect(audit.body[0].target).to.deep.equal({ type: 'campaign', id: ws.campaignId });
    expect(audit.body[0].actor).to.include({ type: 'user', id: ws.user.id });
    expect(audit.body[0].after).to.include({
      stepKey: '0',
      to: 'tester@example.org',
      contactId: ws.contactId,
    });

    const bad = await testSend('not an address');
    const refused = await followRedirect(ws.client, bad);
    expect(refused.text).to.contain('to: must be an email address');

    // Ten per person per ten minutes: nine more go, the eleventh is refused and sends nothing.
    for (let i = 0; i < 9; i++) {
      const again = await testSend('tester@example.org');
      expect(again.status).to.equal(303);
    }
    const count = (await sink.received()).length;
    const limited = await testSend('tester@example.org');
    const limitedPage = await followRedirect(ws.client, limited);
    expect(limitedPage.text).to.contain('You sent 10 test messages in the last 10 minutes');
    expect((await sink.received()).length).to.equal(count);
  });

  it('sends an SMS step’s test to a typed phone number, normalised like a contact’s', async () => {
    const ws = await setUp();
    const account = twilio.addAccount();
    const put = await ws.client.put(`${ws.api}/channels/sms`, {
      ...account,
      from: '+33757000001',
      defaultRegion: 'fr',
      apiUrl: twilio.url,
    });
    expect(put.status, put.text).to.equal(200);
    const smsPage = `${ws.page.replace('/steps/0/', '/steps/2/')}?contact=${ws.contactId}`;
    const page = await consolePage(ws.client, smsPage);
    expect(page.text).to.contain('<label for="test-to">Phone number</label>');
    expect(page.text).to.contain('<input id="test-to" name="to" type="tel" required');
    const sent = await postConsoleForm(ws.client, `${ws.page.replace('/steps/0/', '/steps/2/')}/test`, {
      _csrf: page.token,
      _back: smsPage,
      contact: ws.contactId,
      to: '06 98 76 54 32',
    });
    expect((await followRedirect(ws.client, sent)).text).to.contain('Test sent to 06 98 76 54 32');
    const texts = twilio.sent.filter((m) => m.accountSid === account.accountSid);
    expect(texts.map((m) => [m.to, m.body])).to.deep.equal([['+33698765432', '[Test] Hi Ada']]);
  });

  it('refuses a POST without its CSRF token; a member works as the API lets them; other workspaces see 404', async () => {
    const ws = await setUp();
    const page = await consolePage(ws.client, ws.page);
    const forged = await postConsoleForm(ws.client, ws.page, {
      ...fields('nope', { subject: 'x', body: 'y' }),
      action: 'save',
    });
    expect(forged.status).to.equal(403);
    const forgedTest = await postConsoleForm(ws.client, `${ws.page}/test`, {
      _csrf: 'nope',
      contact: ws.contactId,
      to: 'a@b.example',
    });
    expect(forgedTest.status).to.equal(403);
    expect((await stepOf(ws.client, ws.api, ws.campaignId, 0)).subject).to.equal(
      'Hello {{ contact.firstName }}',
    );

    // Any member may write campaigns through the API: so here.
    const member = await memberOf(ws.client, ws.workspaceId, 'MEMBER');
    const memberPage = await consolePage(member.client, ws.page);
    expect(memberPage.text).to.contain('Save template');
    const saved = await postConsoleForm(member.client, ws.page, {
      ...fields(memberPage.token, { subject: 'By a member', body: '<p>m</p>' }),
      action: 'save',
    });
    expect(saved.status).to.equal(303);
    expect((await stepOf(ws.client, ws.api, ws.campaignId, 0)).subject).to.equal('By a member');

    // Someone of another workspace: the page, the preview and the test send are all "not found".
    const stranger = await workspaceWithAdmin();
    const theirs = await consolePage(stranger.client, `/app/${stranger.workspaceId}/campaigns`);
    const foreign = ws.page.replace(`/app/${ws.workspaceId}/`, `/app/${stranger.workspaceId}/`);
    await consolePage(stranger.client, foreign, 404);
    await consolePage(stranger.client, ws.page, 404);
    const post = await postConsoleForm(stranger.client, `${foreign}/preview`, {
      ...fields(theirs.token, { subject: 'x', body: 'y' }),
    });
    expect(post.status).to.equal(404);
    const test = await postConsoleForm(stranger.client, `${foreign}/test`, {
      _csrf: theirs.token,
      contact: ws.contactId,
      to: 'a@b.example',
    });
    expect(test.status).to.equal(404);
    // A step that is no send step, or none at all.
    await consolePage(ws.client, ws.page.replace('/steps/0/', '/steps/1/'), 404);
    await consolePage(ws.client, ws.page.replace('/steps/0/', '/steps/7.then.0/'), 404);
    // Another workspace's contact is not picked.
    const other = await createContact(stranger.client, `/api/workspaces/${stranger.workspaceId}`, {
      email: 'x@example.com',
      firstName: 'Eve',
    });
    const notPicked = await consolePage(ws.client, `${ws.page}?contact=${other.id}`);
    expect(notPicked.text).to.not.contain('Eve');
    expect(notPicked.text).to.contain('Pick a contact above');
    expect(page.text).to.contain('Save template');
  });

  it('keeps a running campaign’s steps read-only: no save, a crafted save refused', async () => {
    const ws = await setUp();
    const activated = await ws.client.post(`${ws.api}/campaigns/${ws.campaignId}/activate`);
    expect(activated.status, activated.text).to.equal(200);
    const page = await consolePage(ws.client, `${ws.page}?contact=${ws.contactId}`);
    expect(page.text).to.contain('This campaign is active: its steps no longer change');
    expect(page.text).to.not.contain('Save template');
    expect(page.text).to.match(/id="field-subject" name="step.subject" required readonly/);
    expect(page.text).to.match(/<dt>Subject<\/dt><dd>Hello Ada<\/dd>/);
    const crafted = await postConsoleForm(ws.client, ws.page, {
      ...fields(page.token, { subject: 'Changed', body: '<p>x</p>' }),
      action: 'save',
    });
    const refused = await followRedirect(ws.client, crafted);
    expect(refused.text).to.contain('takes only a new name and tracking');
    expect((await stepOf(ws.client, ws.api, ws.campaignId, 0)).subject).to.equal(
      'Hello {{ contact.firstName }}',
    );
  });

  it('keeps hostile subjects and bodies inert in the page, and inside the sandboxed frame only as escaped srcdoc', async () => {
    const ws = await setUp();
    const saved = await ws.client.patch(`${ws.api}/campaigns/${ws.campaignId}`, {
      name: HOSTILE,
      steps: [{ type: 'send', channel: 'email', subject: HOSTILE, body: HOSTILE_BODY, preheader: HOSTILE }],
    });
    expect(saved.status, saved.text).to.equal(200);
    await createContact(ws.client, ws.api, {
      email: 'eve@example.com',
      firstName: HOSTILE,
      attributes: { [HOSTILE]: HOSTILE },
    });
    const eve = (await ws.client.get(`${ws.api}/contacts?email=eve%40example.com`)).body.data[0];
    const page = await consolePage(
      ws.client,
      `${ws.page}?contact=${eve.id}&q=${encodeURIComponent(HOSTILE)}`,
    );
    expectInert(withoutFrames(page.text), 'the template editor outside its frames');
    const frames = [...page.text.matchAll(/<iframe sandbox=""([^>]*)><\/iframe>/g)].map((m) => m[1]!);
    expect(frames).to.have.length(2);
    for (const frame of frames) {
      expect(frame).to.not.match(/allow-/);
      expect(frame).to.not.contain('<');
      expect(frame).to.contain('content=&quot;default-src &#39;none&#39;; img-src data:;');
      expect(frame).to.contain('&lt;script&gt;document.title=&quot;ran&quot;&lt;/script&gt;');
    }
    expect(page.text).to.contain(
      'value="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"',
    );
    const live = await postConsoleForm(ws.client, `${ws.page}/preview`, {
      ...fields(page.token, { subject: HOSTILE, body: HOSTILE_BODY, preheader: HOSTILE }),
      contact: eve.id,
    });
    expectInert(withoutFrames(live.text), 'the live preview outside its frames');
  });
});
