// A template built to hold the process inside one tag (a filter chain, a loop of filters, a
// comparison of a value that shares itself) must fail on its own workspace's request within about
// the render limit, while the process keeps answering everyone else: the service renders in its
// own process, so a render that overran would stall /api/health (and every workspace's sends) too.
import { expect } from 'chai';
import { RENDER_LIMIT_MS } from '../../src/templates/index.ts';
import { createCampaign } from '../campaigns/support.ts';
import { createContact, workspace } from '../events/support.ts';
import { makeContact, messagingWorkspace, sendHi, suiteSink, waitForStatus } from '../messages/support.ts';
import { Client } from '../support/client.ts';
import { expectProblem } from '../support/factories.ts';

const BIG = '{% assign a = (1..400000) %}';
const where12 = Array.from({ length: 12 }, () => 'where: "x"').join(' | ');
// A nesting level made of ten copies of the level below: five levels are 100,000 numbers to compare
// or print, built from fifty pushes.
const nested =
  '{% assign none = "" | split: "," %}{% assign l0 = (1..10) %}' +
  [1, 2, 3, 4, 5]
    .map(
      (level) =>
        `{% assign l${level} = none %}{% for i in (1..10) %}{% assign l${level} = l${level} | push: l${level - 1} %}{% endfor %}`,
    )
    .join('');

const ATTACKS: Record<string, string> = {
  // The finding's variants: a ~650,000-item array, then filters inside one tag.
  'chained where in one assign over 650,000 items': `{% assign a = (1..650000) %}{% assign b = a | ${where12} %}{{ b.size }}`,
  'chained where in one assign over 400,000 items': `${BIG}{% assign b = a | ${where12} %}{{ b.size }}`,
  'where in a 50-iteration loop': `${BIG}{% for i in (1..50) %}{% assign b = a | where: "x" %}{% endfor %}{{ b.size }}`,
  'repeated sort_natural': `${BIG}{% assign b = a | sort_natural | sort_natural | sort_natural %}{{ b.size }}`,
  // Beyond them: values that hold themselves many times over cost their full size to compare or print.
  'comparing a nested array with itself': `${nested}{% if l5 == l5 %}same{% endif %}`,
  'a case on a nested array': `${nested}{% case l5 %}{% when l5 %}same{% endcase %}`,
  'joining a nested array': `${nested}{{ l5 | join: "," | size }}`,
  'concat doubling, then map': `{% assign a = (1..1000) %}{% for i in (1..10) %}{% assign a = a | concat: a %}{% endfor %}{{ a | map: "x" | map: "x" | map: "x" | uniq | size }}`,
  'a long string printed in a loop': `{% assign s = "xxxxxxxxxxxxxxxx" %}{% for i in (1..12) %}{% assign s = s | append: s %}{% endfor %}{% for i in (1..1600) %}{{ s | raw }}{% endfor %}`,
  'a long string compared in a where_exp': `{% assign s = "xxxxxxxxxxxxxxxx" %}{% for i in (1..14) %}{% assign s = s | append: s %}{% endfor %}{% assign t = s | append: "" %}{% assign b = (1..100000) | where_exp: "x", "s == t" %}{{ b.size }}`,
};

/** Asks /api/health over and over while `during` runs; resolves to its result and the slowest answer. */
async function healthLatencyDuring<T>(during: Promise<T>): Promise<{ result: T; slowestMs: number }> {
  let done = false;
  const result = during.finally(() => {
    done = true;
  });
  let slowestMs = 0;
  const health = new Client();
  while (!done) {
    const started = performance.now();
    const answer = await health.get('/api/health');
    expect(answer.status).to.equal(200);
    slowestMs = Math.max(slowestMs, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { result: await result, slowestMs };
}

// A render stops at most one step past the limit; the rest is HTTP, the database and a loaded
// machine. Before the guards, these took 1.4-6 s (twice: a render over the limit was tried again).
const BOUND_MS = 2 * RENDER_LIMIT_MS + 500;

describe('templates: render limits hold inside a tag', () => {
  const sink = suiteSink();

  for (const [name, body] of Object.entries(ATTACKS)) {
    it(`a preview of ${name} is a 400 within the limit, and /api/health answers meanwhile`, async () => {
      const { admin, base } = await workspace();
      const campaign = await createCampaign(admin, base, {
        steps: [{ type: 'send', channel: 'email', subject: 'Hi', body }],
      });
      const contact = await createContact(admin, base, { email: 'ann@limits.test' });
      const started = performance.now();
      const { result: preview, slowestMs } = await healthLatencyDuring(
        admin.post(`${base}/campaigns/${campaign.id}/preview`, { contactId: contact.id, step: '0' }),
      );
      const elapsed = performance.now() - started;
      expectProblem(preview, 400);
      expect(preview.body.errors[0].message).to.match(
        /^step 0, (html|text), line \d+, column \d+: .*limit exceeded/,
      );
      expect(elapsed, 'preview duration').to.be.below(BOUND_MS);
      expect(slowestMs, '/api/health latency during the preview').to.be.below(BOUND_MS);
    });
  }

  it('at send time, the message fails for good with the reason while another workspace sends', async () => {
    const attacker = await messagingWorkspace(sink);
    const victim = await messagingWorkspace(sink);
    const attackerContact = await makeContact(attacker.client, attacker.base, { email: 'a@limits.test' });
    const victimContact = await makeContact(victim.client, victim.base, { email: 'v@limits.test' });
    const attack = await attacker.client.post(`${attacker.base}/messages`, {
      contactId: attackerContact,
      channel: 'email',
      subject: 'Hi',
      html: ATTACKS['repeated sort_natural'],
    });
    expect(attack.status, attack.text).to.equal(202);
    const sent = await sendHi(victim.client, victim.base, victimContact);
    const { result: failed, slowestMs } = await healthLatencyDuring(
      waitForStatus(attacker.client, attacker.base, attack.body.id, 'failed'),
    );
    expect(failed.error).to.match(
      /^template error in html at line \d+, column \d+: template work limit exceeded/,
    );
    expect(failed.attempts).to.equal(1);
    await waitForStatus(victim.client, victim.base, sent.body.id, 'sent');
    expect(slowestMs, '/api/health latency while the worker renders').to.be.below(BOUND_MS);
  });
});
