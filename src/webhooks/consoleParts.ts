// Pieces both webhook pages show: an endpoint's health, its state and its inbound URL.
import type { Response } from 'express';
import { badge, html, type SafeHtml, time } from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import type { HealthRow } from './consoleQueries.ts';
import type { Endpoint } from './schemas.ts';

/** "97 % of the last 100", or a dash before the first attempt. */
export function healthText(health: HealthRow | undefined): SafeHtml {
  if (!health || health.attempts === 0) return html`<span class="muted">No attempts yet</span>`;
  const rate = Math.round((health.succeeded / health.attempts) * 100);
  const kind = rate >= 99 ? 'success' : rate >= 80 ? 'warning' : 'danger';
  return html`${badge(`${rate} %`, kind)} <span class="muted">of the last ${health.attempts}</span>`;
}

export function lastFailure(health: HealthRow | undefined): SafeHtml {
  if (!health?.last_failure_at) return html`<span class="muted">None</span>`;
  const what = health.last_failure_error ?? `HTTP ${health.last_failure_status}`;
  return html`${time(health.last_failure_at)}<br><span class="muted">${what}</span>`;
}

export function stateBadge(endpoint: Endpoint): SafeHtml {
  if (endpoint.active) return badge('active', 'success');
  return html`${badge('disabled', 'danger')}${endpoint.disabledReason ? html` <span class="muted">${endpoint.disabledReason}</span>` : ''}`;
}

/** Where a sender posts to an inbound endpoint: PUBLIC_URL's origin, else the one this page was asked on. */
export function inboundUrl(app: AppContext, res: Response, endpointId: string): string {
  const origin = app.config.PUBLIC_URL ?? `${res.req.protocol}://${res.req.get('host')}`;
  return `${origin.replace(/\/$/, '')}/api/webhooks/inbound/${endpointId}`;
}
