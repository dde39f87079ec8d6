// The workspace bench/ingest.ts runs against, built through the public API: 10 segments of mixed
// rule kinds, 5 scoring rules, 3 active event-triggered campaigns and 10,000 contacts.
const CONTACTS = 10_000;

export type Setup = {
  workspaceId: string;
  apiKey: string;
  summary: string;
  randomEvent: () => Record<string, unknown>;
  /** An event for a contact of the `part`-th of `parts` equal shares of the contacts. */
  randomEventIn: (part: number, parts: number) => Record<string, unknown>;
};

const SEGMENTS = [
  { event: 'purchase', count: { gte: 2 } },
  { event: 'page_view', within: 'P7D', count: { gte: 3 } },
  { event: 'purchase', where: [{ path: 'amount', op: 'gt', value: 100 }] },
  { leadScore: { gte: 50 } },
  { attribute: 'plan', op: 'eq', value: 'pro' },
  { field: 'email', op: 'ends_with', value: '@example.com' },
  { all: [{ event: 'signup' }, { leadScore: { gte: 10 } }] },
  { any: [{ event: 'demo_request' }, { attribute: 'vip', op: 'eq', value: true }] },
  { not: { event: 'purchase' } },
  {
    all: [
      { field: 'firstName', op: 'exists' },
      { event: 'page_view', where: [{ path: 'path', op: 'starts_with', value: '/pricing' }] },
    ],
  },
];

const SCORING_RULES = [
  { name: 'Purchase', eventType: 'purchase', points: 10 },
  {
    name: 'Big purchase',
    eventType: 'purchase',
    points: 20,
    where: [{ path: 'amount', op: 'gt', value: 100 }],
  },
  { name: 'Page view', eventType: 'page_view', points: 1 },
  { name: 'Signup', eventType: 'signup', points: 5, repeatable: false },
  { name: 'Demo', eventType: 'demo_request', points: 15, cooldown: 'P1D' },
];

const CAMPAIGNS = [
  { name: 'Welcome', trigger: { type: 'event', eventType: 'signup' }, reentry: 'never' },
  {
    name: 'Thanks',
    trigger: { type: 'event', eventType: 'purchase', where: [{ path: 'amount', op: 'gt', value: 50 }] },
    reentry: 'always',
  },
  {
    name: 'Pricing nudge',
    trigger: {
      type: 'event',
      eventType: 'page_view',
      where: [{ path: 'path', op: 'eq', value: '/pricing' }],
    },
    reentry: 'after_completion',
  },
];

/** A signed-in API client (the session cookie of the last sign-in); benches set up through it. */
export class Api {
  private cookie = '';
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }
  /** The session cookie (name=value), for requests made without this client (a stream). */
  get sessionCookie(): string {
    return this.cookie;
  }
  post(path: string, body: unknown, expected = 201) {
    return this.request('POST', path, body, expected);
  }
  /** Throws unless the status is `expected` (by default: any 2xx). */
  async request(method: string, path: string, body: unknown, expected?: number) {
    const response = await fetch(this.base + path, {
      method,
      headers: { 'content-type': 'application/json', cookie: this.cookie },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = response.headers.getSetCookie()[0];
    if (setCookie) this.cookie = setCookie.split(';')[0];
    const text = await response.text();
    const ok = expected === undefined ? response.ok : response.status === expected;
    if (!ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** Registers an account, signs in and makes a workspace; returns its id. */
  async newWorkspace(name: string): Promise<string> {
    const email = `bench.${Date.now()}@example.com`;
    await this.post('/api/auth/register', { name, email, password: 'correct horse battery' });
    await this.post('/api/auth/signin', { email, password: 'correct horse battery' }, 200);
    return (await this.post('/api/workspaces', { name })).id;
  }
}

export const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];

/** An event's type and metadata in the bench's mix (the floors write the same). */
export function randomEventBody(): { type: string; metadata: Record<string, unknown> } {
  const roll = Math.random();
  if (roll < 0.6) return { type: 'page_view', metadata: { path: pick(['/', '/pricing', '/docs', '/blog']) } };
  if (roll < 0.8) return { type: 'purchase', metadata: { amount: Math.floor(Math.random() * 200) } };
  if (roll < 0.9) return { type: 'signup', metadata: {} };
  return { type: pick(['demo_request', 'custom.click']), metadata: { source: 'bench' } };
}

function randomEventFor(emails: string[]) {
  return () => ({ ...randomEventBody(), email: pick(emails) });
}

export async function setUpWorkspace(baseUrl: string): Promise<Setup> {
  const api = new Api(baseUrl);
  const workspaceId = await api.newWorkspace('Bench');
  const base = `/api/workspaces/${workspaceId}`;
  const { key } = await api.post(`${base}/keys`, {
    name: 'bench',
    scopes: ['events:write', 'contacts:write'],
  });
  for (const [i, rules] of SEGMENTS.entries())
    await api.post(`${base}/segments`, { name: `Segment ${i}`, rules });
  for (const rule of SCORING_RULES) await api.post(`${base}/scoring-rules`, rule);
  for (const campaign of CAMPAIGNS) {
    const steps = [{ type: 'send', channel: 'email', subject: campaign.name, body: 'Hello' }];
    const { id } = await api.post(`${base}/campaigns`, { ...campaign, steps });
    await api.post(`${base}/campaigns/${id}/activate`, undefined, 200);
  }
  const emails = Array.from({ length: CONTACTS }, (_, i) => `contact${i}@example.com`);
  for (let offset = 0; offset < CONTACTS; offset += 1000) {
    const events = emails.slice(offset, offset + 1000).map((contactEmail, i) => ({
      type: 'signup',
      email: contactEmail,
      firstName: i % 2 ? 'Ada' : undefined,
    }));
    await api.post(`${base}/events/batch`, { events });
  }
  return {
    workspaceId,
    apiKey: key,
    summary: `${SEGMENTS.length} segments, ${SCORING_RULES.length} scoring rules, ${CAMPAIGNS.length} active campaigns, ${CONTACTS} contacts`,
    randomEvent: randomEventFor(emails),
    randomEventIn: (part, parts) => {
      const share = Math.ceil(emails.length / parts);
      return randomEventFor(emails.slice(part * share, (part + 1) * share))();
    },
  };
}
