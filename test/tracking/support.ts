// Tracking tests' helpers: a workspace whose email goes to the sink, campaign mail with links, the
// tracked links and pixel read back from the mail the sink received, and a local landing site.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { activeCampaign, makeContact, messagingWorkspace, type Sink } from '../messages/support.ts';
import type { Client } from '../support/client.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';

export const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** A mail security gateway's agent: its hits are machine hits (security_gateway). */
export const BARRACUDA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Barracuda Sentinel (EE)';

export type Landing = { origin: string; paths: string[]; close: () => Promise<void> };

/** A site the tracked links point at; it records the paths (with query) it was asked for. */
export async function startLanding(): Promise<Landing> {
  const paths: string[] = [];
  const site: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Landed</h1>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const { port } = site.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    paths,
    close: () => new Promise((resolve) => site.close(() => resolve())),
  };
}

/** A landing site for the enclosing describe block: started before its tests, closed after them. */
export function suiteLanding(): Landing {
  const landing = {} as Landing;
  before(async () => {
    Object.assign(landing, await startLanding());
  });
  after(() => landing.close());
  return landing;
}

export function newsletter(landing: string) {
  return (
    '<!doctype html><html><body><h1>News</h1>' +
    `<p><a id="offer" href="${landing}/offer?utm=mail&amp;x=1#top">See the offer</a></p>` +
    `<p><a id="blog" href="${landing}/blog">Blog</a> · <a href="mailto:help@acme.test">Help</a> · ` +
    `<a data-track="off" href="${landing}/plain">Plain</a> · <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>` +
    '</body></html>'
  );
}

/** A workspace, an active campaign on `trigger` sending the newsletter, and a contact it reached. */
export async function campaignMail(sink: Sink, landing: string, options: Record<string, unknown> = {}) {
  const ws = await messagingWorkspace(sink);
  const step = { type: 'send', channel: 'email', subject: 'News', body: newsletter(landing) };
  const campaignId = await activeCampaign(ws.client, ws.base, 'newsletter.requested', [step]);
  if (options.tracking) {
    const patched = await ws.client.patch(`${ws.base}/campaigns/${campaignId}`, {
      tracking: options.tracking,
    });
    expect(patched.status, patched.text).to.equal(200);
  }
  const contactId = await makeContact(ws.client, ws.base, { email: `reader.${Math.random()}@example.test` });
  const tracked = await ws.client.post(`${ws.base}/events`, { type: 'newsletter.requested', contactId });
  expect(tracked.status, tracked.text).to.equal(201);
  const message = await eventually(async () => {
    const list = await ws.client.get(`${ws.base}/messages?contactId=${contactId}&status=sent`);
    return list.body.data[0];
  }, 20_000);
  const mail = await eventually(async () =>
    (await sink.received()).find((r) => r.headers['x-switchboard-message-id'] === message.id),
  );
  return {
    ...ws,
    campaignId,
    contactId,
    messageId: message.id as string,
    html: String(mail.mail.html),
    mail,
  };
}

/** The mail's tracked links by id, the honeypot's and the pixel's, as paths on the service. */
export function trackingOf(html: string) {
  const path = (url: string) => new URL(url).pathname;
  const links = new Map<string, string>();
  for (const [, id, href] of html.matchAll(/<a id="(\w+)" href="([^"]+)"/g)) links.set(id, path(href));
  const honeypot = /<a href="([^"]+)" style="display:none/.exec(html)?.[1];
  const pixel = /<img src="([^"]+\/t\/o\/[^"]+)"/.exec(html)?.[1];
  return { links, honeypot: honeypot && path(honeypot), pixel: pixel && path(pixel) };
}

/** As if the mail had been sent a minute ago: hits now are past the "too soon" window. */
export async function sentAMinuteAgo(messageId: string) {
  await server().context.db.query(sql.typeAlias('void')`
    update messages set sent_at = sent_at - interval '1 minute' where id = ${messageId}
  `);
}

/** A hit on the service as a client with this user agent would make it. */
export async function hit(
  path: string,
  options: { userAgent?: string; method?: string; headers?: Record<string, string> } = {},
) {
  return fetch(server().baseUrl + path, {
    method: options.method ?? 'GET',
    redirect: 'manual',
    headers: { 'user-agent': options.userAgent ?? CHROME, ...options.headers },
  });
}

type Hit = {
  kind: string;
  human: boolean;
  reasons: string[];
  method: string;
  classifiedAt: string | null;
  url: string | null;
};

/** The message's hits once `count` of them are classified by the worker. */
export async function classifiedHits(
  client: Client,
  base: string,
  messageId: string,
  count: number,
): Promise<Hit[]> {
  return eventually(async () => {
    const got = await client.get(`${base}/messages/${messageId}`);
    const hits = got.body.hits as Hit[];
    return hits.filter((h) => h.classifiedAt).length >= count ? hits : null;
  }, 20_000);
}
