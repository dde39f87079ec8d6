// Who made a tracking hit, from the request alone: the plain cases every classification must keep
// (a person's browser is a person; a command-line client, a crawler, a HEAD, a prefetch or no user
// agent at all is a machine). test/tracking/people.test.ts covers the whole path through the worker.
import { expect } from 'chai';
import { type HitKind, type RequestFacts, requestReasons } from '../../src/tracking/classify.ts';

const BROWSERS = {
  'desktop Chrome':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'desktop Firefox': 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'iPhone Safari':
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
};

const MACHINES = {
  curl: 'curl/8.5.0',
  wget: 'Wget/1.21.4',
  'Python requests': 'python-requests/2.32.3',
  Googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};

const get = (userAgent: string | undefined, extra: Partial<RequestFacts> = {}): RequestFacts => ({
  method: 'GET',
  userAgent,
  purpose: '',
  ...extra,
});

describe('tracking: classifying a request', () => {
  for (const [name, agent] of Object.entries(BROWSERS)) {
    it(`takes a GET from ${name} for a person, opening or clicking`, () => {
      for (const kind of ['open', 'click'] satisfies HitKind[]) {
        expect(requestReasons(kind, get(agent)), kind).to.deep.equal([]);
      }
    });
  }

  for (const [name, agent] of Object.entries(MACHINES)) {
    it(`takes ${name} for a machine by its user agent`, () => {
      expect(requestReasons('click', get(agent))).to.include('bot_user_agent');
      expect(requestReasons('open', get(agent))).not.to.deep.equal([]);
    });
  }

  it('takes a request without a user agent, or a blank one, for a machine', () => {
    expect(requestReasons('click', get(undefined))).to.include('no_user_agent');
    expect(requestReasons('click', get('   '))).to.include('no_user_agent');
  });

  it("takes a HEAD for a link checker, even with a browser's user agent", () => {
    expect(requestReasons('click', get(BROWSERS['desktop Chrome'], { method: 'HEAD' }))).to.include(
      'head_request',
    );
  });

  it("takes a browser's prefetch or prerender for a machine", () => {
    for (const purpose of ['prefetch', 'prefetch;prerender', 'preview']) {
      expect(requestReasons('click', get(BROWSERS['desktop Chrome'], { purpose })), purpose).to.include(
        'prefetch',
      );
    }
  });
});
