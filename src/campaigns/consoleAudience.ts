// A broadcast's audience before it is sent (…/campaigns/{id}/audience): how many of the segment's
// members its first send step will reach, and for everyone else why not — each reason delivery
// would give, with its count and a few of the people — and who will be sent it later than the
// start (frequency cap, quiet hours). The same dry run as GET …/campaigns/{id}/audience
// (audience.ts); the activate confirmation links here rather than running it, because at a
// million members it takes seconds and activating should not wait for it.
import type { Request, Response, Router } from 'express';
import {
  formatNumber,
  html,
  keyValueList,
  pageWorkspace,
  type SafeHtml,
  sendPage,
  table,
  time,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { campaignAudience, type EXCLUSION_REASONS } from './audience.ts';
import { requireCampaign } from './service.ts';

type Audience = Awaited<ReturnType<typeof campaignAudience>>;
type Member = Audience['excluded'][number]['sample'][number];

const EXCLUDED_WORDS: Record<(typeof EXCLUSION_REASONS)[number], string> = {
  no_address: 'No address on the channel',
  hard_bounce: 'A hard bounce',
  complaint: 'A spam complaint',
  soft_bounces: 'Repeated soft bounces',
  unsubscribed_all: 'Unsubscribed from everything',
  unsubscribed_channel: 'Unsubscribed from the channel',
};

const DEFERRED_WORDS: Record<Audience['deferred'][number]['reason'], string> = {
  frequency_cap: 'Over the frequency cap: sent once the cap allows',
  quiet_hours: 'In their quiet hours: sent when those end',
};

function sample(base: string, members: Member[]): SafeHtml {
  if (members.length === 0) return html`—`;
  return html`${members.map(
    (member, index) =>
      html`${index > 0 ? ', ' : ''}<a href="${base}/contacts/${encodeURIComponent(member.id)}">${member.email ?? member.id}</a>`,
  )}`;
}

function percentOf(part: number, whole: number): string {
  return whole === 0 ? '' : ` (${((100 * part) / whole).toFixed(1)} %)`;
}

function audienceBody(base: string, audience: Audience): SafeHtml {
  const excluded = audience.members - audience.reached;
  return html`${keyValueList([
    ['Members of the segment now', formatNumber(audience.members)],
    [
      'It will reach',
      html`<strong>${formatNumber(audience.reached)}</strong>${percentOf(audience.reached, audience.members)}`,
    ],
    ['Of them, later than the start', formatNumber(audience.deferredTotal)],
    ['It will not reach', `${formatNumber(excluded)}${percentOf(excluded, audience.members)}`],
    ['Computed for', time(audience.at)],
  ])}
<h2>Who will not get it, and why</h2>
<p class="muted">Each member counts once, under the first reason delivery finds, in this order.</p>
${table({
  caption: 'Members who will not get it, by reason',
  columns: [{ label: 'Reason' }, { label: 'People', numeric: true }, { label: 'For example' }],
  rows: audience.excluded.map((row) => [
    html`${EXCLUDED_WORDS[row.reason]}${row.description ? html`<br><span class="muted">${row.description}</span>` : ''}`,
    formatNumber(row.count),
    sample(base, row.sample),
  ]),
})}
<h2>Who will get it later</h2>
<p class="muted">Deferred, not dropped. A member held by both counts under each.</p>
${table({
  caption: 'Members sent it later than the start, by reason',
  columns: [{ label: 'Reason' }, { label: 'People', numeric: true }, { label: 'For example' }],
  rows: audience.deferred.map((row) => [
    DEFERRED_WORDS[row.reason],
    formatNumber(row.count),
    sample(base, row.sample),
  ]),
})}`;
}

async function audiencePage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = await requireCampaign(app.db, workspaceId, String(req.params.campaignId));
  const base = workspacePath(res);
  const path = `${base}/campaigns/${encodeURIComponent(campaign.id)}`;
  // A campaign that is not a broadcast, or sends nothing, is the API's 409, shown as its page.
  const audience = await campaignAudience(app.db, workspaceId, campaign.id);
  sendPage(res, {
    title: `Audience of ${campaign.name}`,
    section: 'campaigns',
    crumbs: [
      { label: 'Campaigns', href: `${base}/campaigns` },
      { label: campaign.name, href: path },
    ],
    actions:
      campaign.status === 'draft' ? html`<a class="button" href="${path}/activate">Activate…</a>` : undefined,
    body: audienceBody(base, audience),
  });
}

export function installAudiencePage(app: AppContext, router: Router) {
  router.get('/campaigns/:campaignId/audience', (req, res) => audiencePage(app, req, res));
}
