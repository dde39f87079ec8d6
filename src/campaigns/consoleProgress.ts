// A broadcast's live progress in the console (…/campaigns/{id}/progress): sent of all, the rate,
// what is left and the time left, those not sent by reason, and its start and finish times.
// With JavaScript, console.js follows the page's server-sent events (…/progress/stream): each
// event is the figures section rendered here, from the ticker all viewers of the campaign share
// (progressStream.ts); the stream ends when the broadcast finishes or the viewer leaves. Without
// JavaScript a Refresh link reloads it, and the viewer may ask for a reload every few seconds
// (a Refresh header, until it finishes): asked for, never imposed, as an automatic reload
// unasked disorients a screen reader user (WCAG 2.2.1; axe's meta-refresh rule).
import type { Request, Response, Router } from 'express';
import {
  type BadgeKind,
  badge,
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
import { campaignPath } from './consolePath.ts';
import { type CampaignProgress, progressOf, requireProgressRow } from './progress.ts';
import { type ProgressHub, progressHub } from './progressStream.ts';
import { requireCampaign } from './service.ts';

/** The reload a viewer without JavaScript may ask for, in seconds. */
const RELOAD_SECONDS = 5;
/** A stream is ended after this long (the browser's EventSource reconnects): no connection is held for ever. */
const STREAM_MAX_MS = 10 * 60_000;
/** How long the browser waits before reconnecting a stream that broke. */
const RECONNECT_MS = 3_000;

const STATE_WORDS: Record<CampaignProgress['state'], [string, BadgeKind]> = {
  not_started: ['not started', 'neutral'],
  scheduled: ['scheduled', 'info'],
  enrolling: ['enrolling and sending', 'info'],
  sending: ['sending', 'info'],
  finished: ['finished', 'success'],
};

const NOT_SENT_WORDS: Record<CampaignProgress['notSent'][number]['status'], string> = {
  failed: 'failed',
  bounced: 'bounced',
  suppressed: 'suppressed',
};

/** 3725 → "1 h 2 min 5 s". */
export function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts = [h ? `${h} h` : '', m ? `${m} min` : '', s || (!h && !m) ? `${s} s` : ''];
  return parts.filter(Boolean).join(' ');
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0 %' : `${Math.floor((part / whole) * 100)} %`;
}

function timeLeft(progress: CampaignProgress): string {
  if (progress.state === 'finished') return 'none: finished';
  if (progress.secondsLeft === null) return 'not known yet (nothing has left the queue)';
  return `about ${duration(progress.secondsLeft)}`;
}

/** The figures: what the page shows and what each stream event carries. */
export function figuresSection(progress: CampaignProgress): SafeHtml {
  const m = progress.messages;
  const total = progress.settled + progress.left;
  const [state, kind] = STATE_WORDS[progress.state];
  const rateWords = progress.rate.over === 'recent' ? 'over the last seconds' : 'on average since the start';
  const notSent = progress.notSent.length
    ? table({
        caption: 'Messages not sent, by reason',
        columns: [{ label: 'Outcome' }, { label: 'Reason' }, { label: 'Messages', numeric: true }],
        rows: progress.notSent.map((group) => [
          NOT_SENT_WORDS[group.status],
          group.reason,
          formatNumber(group.count),
        ]),
      })
    : html`<p class="muted">Every message that left the queue was sent.</p>`;
  return html`<p>${badge(state, kind)} <span class="muted">as of ${time(progress.asOf)}</span></p>
<p><label for="progress-bar">Left the queue: ${formatNumber(progress.settled)} of ${formatNumber(total)} (${percent(progress.settled, total)})</label>
<progress id="progress-bar" max="${Math.max(total, 1)}" value="${progress.settled}">${percent(progress.settled, total)}</progress></p>
${keyValueList([
  ['Sent', `${formatNumber(m.sent)} (${formatNumber(progress.rate.sentPerSecond)} per second ${rateWords})`],
  [
    'Not sent',
    `${formatNumber(m.failed)} failed · ${formatNumber(m.bounced)} bounced · ${formatNumber(m.suppressed)} suppressed`,
  ],
  [
    'Left',
    `${formatNumber(progress.left)}: ${formatNumber(m.queued)} queued · ${formatNumber(m.sending)} sending · ${formatNumber(progress.toEnroll)} not yet enrolled`,
  ],
  ['Time left', timeLeft(progress)],
  ['Started', progress.startedAt ? time(progress.startedAt) : null],
  ['All enrolled', progress.enrolledAt ? time(progress.enrolledAt) : null],
  ['Finished', progress.finishedAt ? time(progress.finishedAt) : null],
])}
<h2>Not sent, by reason</h2>
${notSent}`;
}

function wantsReload(req: Request): boolean {
  return req.query.refresh === String(RELOAD_SECONDS);
}

async function progressPage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const campaignId = String(req.params.campaignId);
  const campaign = await requireCampaign(app.db, workspaceId, campaignId);
  const progress = progressOf(campaignId, await requireProgressRow(app.db, workspaceId, campaignId));
  const path = campaignPath(res, campaignId);
  const live = progress.state !== 'finished';
  if (live && wantsReload(req)) res.setHeader('Refresh', String(RELOAD_SECONDS));
  const reload = !live
    ? ''
    : wantsReload(req)
      ? html` · <a href="${path}/progress">Stop reloading</a>`
      : html`<noscript> · <a href="${path}/progress?refresh=${RELOAD_SECONDS}">Reload every ${RELOAD_SECONDS} seconds</a></noscript>`;
  sendPage(res, {
    title: `Progress of ${campaign.name}`,
    section: 'campaigns',
    crumbs: [
      { label: 'Campaigns', href: `${workspacePath(res)}/campaigns` },
      { label: campaign.name, href: path },
    ],
    actions: html`<a class="button" href="${path}/progress">Refresh</a>`,
    body: html`<p class="muted">${live ? 'Updated live while this page is open.' : 'This broadcast has finished.'}${reload}</p>
<section class="progress-figures" aria-label="Sending progress"${live ? html` data-progress-stream="${path}/progress/stream"` : ''}>${figuresSection(progress)}</section>`,
  });
}

/** One server-sent event; each line of `data` on its own `data:` line, as the format wants. */
function event(name: string, data: string): string {
  return `event: ${name}\n${data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

async function progressStream(app: AppContext, hub: ProgressHub, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const campaignId = String(req.params.campaignId);
  await requireProgressRow(app.db, workspaceId, campaignId); // 404 / 409 before the stream opens
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('X-Accel-Buffering', 'no'); // a proxy must pass each event on as it comes
  res.flushHeaders();
  res.write(`retry: ${RECONNECT_MS}\n\n`);
  let open = true;
  let unwatch: (() => void) | undefined;
  const end = (final?: string) => {
    if (!open) return;
    open = false;
    unwatch?.();
    clearTimeout(limit);
    if (final) res.write(final);
    res.end();
  };
  const limit = setTimeout(() => end(), STREAM_MAX_MS).unref();
  unwatch = hub.watch(workspaceId, campaignId, (progress) => {
    if (!open) return;
    if (!progress) return end(event('end', 'gone'));
    res.write(event('progress', String(figuresSection(progress))));
    if (progress.state === 'finished') end(event('end', 'finished'));
  });
  if (!open) unwatch(); // it ended on the figures the watch had already
  res.on('close', () => end()); // the viewer left (or the server ends it)
}

export function installProgressPages(app: AppContext, router: Router) {
  const hub = progressHub(app.db, app.log);
  router.get('/campaigns/:campaignId/progress', (req, res) => progressPage(app, req, res));
  router.get('/campaigns/:campaignId/progress/stream', (req, res) => progressStream(app, hub, req, res));
}
