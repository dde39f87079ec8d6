// A broadcast's audience before it is sent (…/campaigns/{id}/audience): how many of the segment's
// members its first send step will reach, and for everyone else why not — each reason delivery
// would give, with its count and a few of the people — and who will be sent it later than the
// start (frequency cap, quiet hours). The same figures as GET …/campaigns/{id}/audience
// (audienceStore.ts): counted at each visit for an audience of up to CAMPAIGN_AUDIENCE_LIVE_LIMIT
// members, else the last count with its time, counted again in the worker when it is out of date
// or on "Count again". While a count runs the page says so; htmx polls …/audience/counting and
// reloads the page when it ends (without JavaScript, a refresh shows it). The activate confirmation
// links here rather than counting, so activating never waits for a count.
import type { Request, Response, Router } from 'express';
import {
  consoleForm,
  formatNumber,
  html,
  keyValueList,
  pageWorkspace,
  postForm,
  redirectWithFlash,
  type SafeHtml,
  sendPage,
  table,
  time,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import type { Audience, EXCLUSION_REASONS } from './audience.ts';
import {
  AUDIENCE_STALE_AFTER_MS,
  type AudienceAnswer,
  type AudienceCounting,
  audienceCountingSince,
  audienceNow,
  recountAudience,
} from './audienceStore.ts';
import { campaignPath } from './consolePath.ts';
import { requireCampaign } from './service.ts';

type Member = Audience['excluded'][number]['sample'][number];
/** How often the page asks whether a count has ended (htmx). */
const POLL_SECONDS = 2;

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

/** The count under way: polled by htmx, which reloads the page once it has ended. */
function countingSection(path: string, countingSince: string, words: SafeHtml): SafeHtml {
  return html`<section id="audience-counting" class="flash" role="status" hx-get="${path}/audience/counting" hx-trigger="every ${POLL_SECONDS}s" hx-swap="outerHTML">
<p>${words} Counting since ${time(countingSince)}: this page shows the figures when the count ends (<a href="${path}/audience">refresh</a>).</p>
</section>`;
}

/** When the figures were counted, whether they still hold, and how to count them again. */
function countedSection(app: AppContext, res: Response, path: string, audience: AudienceAnswer): SafeHtml {
  const limit = app.config.CAMPAIGN_AUDIENCE_LIVE_LIMIT;
  if (audience.members <= limit && !audience.stale && !audience.countingSince)
    return html`<p class="muted">Counted now: an audience of up to ${formatNumber(limit)} members is counted at every visit.</p>`;
  const minutes = AUDIENCE_STALE_AFTER_MS / 60_000;
  const staleWords = audience.stale
    ? html`<strong>These figures are out of date</strong>: the campaign, its segment or the pacing changed since, or they are over ${minutes} minutes old.`
    : html`An audience of more than ${formatNumber(limit)} members is counted in the background, again once its figures are ${minutes} minutes old.`;
  const recount = audience.countingSince
    ? countingSection(path, audience.countingSince, html`A new count is under way.`)
    : postForm(res, { action: `${path}/audience/recount`, label: 'Count again' });
  return html`<p>Counted ${time(audience.countedAt)}. ${staleWords}</p>${recount}`;
}

function pageShell(res: Response, campaign: { id: string; name: string; status: string }, body: SafeHtml) {
  const path = campaignPath(res, campaign.id);
  sendPage(res, {
    title: `Audience of ${campaign.name}`,
    section: 'campaigns',
    crumbs: [
      { label: 'Campaigns', href: `${workspacePath(res)}/campaigns` },
      { label: campaign.name, href: path },
    ],
    actions:
      campaign.status === 'draft' ? html`<a class="button" href="${path}/activate">Activate…</a>` : undefined,
    body,
  });
}

function countingBody(path: string, counting: AudienceCounting): SafeHtml {
  return countingSection(
    path,
    counting.countingSince,
    html`The audience of the segment's ${formatNumber(counting.members)} members is being counted for the first time.`,
  );
}

async function audiencePage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = await requireCampaign(app.db, workspaceId, String(req.params.campaignId));
  const path = campaignPath(res, campaign.id);
  // A campaign that is not a broadcast, or sends nothing, is the API's 409, shown as its page.
  const answer = await audienceNow(app, workspaceId, campaign.id);
  const body =
    'counting' in answer
      ? countingBody(path, answer.counting)
      : html`${countedSection(app, res, path, answer.counted)}${audienceBody(workspacePath(res), answer.counted)}`;
  pageShell(res, campaign, body);
}

/** The counting section while the count runs; once it has ended, htmx reloads the whole page. */
async function countingFragment(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = await requireCampaign(app.db, workspaceId, String(req.params.campaignId));
  const countingSince = await audienceCountingSince(app.db, workspaceId, campaign.id);
  if (countingSince) {
    const path = campaignPath(res, campaign.id);
    res.type('html').send(countingSection(path, countingSince, html`Counting the audience.`).toString());
    return;
  }
  res.setHeader('HX-Refresh', 'true');
  res.status(204).end();
}

async function recount(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const campaign = await requireCampaign(app.db, workspaceId, String(req.params.campaignId));
  await recountAudience(app, workspaceId, campaign.id);
  const path = `${campaignPath(res, campaign.id)}/audience`;
  await redirectWithFlash(
    req,
    res,
    path,
    'Counting the audience again: the page shows the figures when it ends.',
  );
}

export function installAudiencePage(app: AppContext, router: Router) {
  router.get('/campaigns/:campaignId/audience', (req, res) => audiencePage(app, req, res));
  router.get('/campaigns/:campaignId/audience/counting', (req, res) => countingFragment(app, req, res));
  router.post('/campaigns/:campaignId/audience/recount', consoleForm(), (req, res) => recount(app, req, res));
}
