// The contact page's event timeline (a panel, src/contacts/consolePanels.ts): the contact's events
// newest first, filtered by type, paged by the last event's id (the API's `beforeId`), each one's
// metadata in a <details> that opens without JavaScript.

import { html, type SafeHtml, table, time, withQuery } from '../console/index.ts';
import type { ContactPanel, ContactView } from '../contacts/index.ts';
import { listEventsFor } from './service.ts';

const PAGE_SIZE = 25;

type Event = Awaited<ReturnType<typeof listEventsFor>>[number];

function query(view: ContactView, name: string): string {
  const value = view.req.query[name];
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
}

function details(event: Event): SafeHtml {
  const context = Object.fromEntries(
    Object.entries({
      sessionId: event.sessionId,
      pageUrl: event.pageUrl,
      referrer: event.referrer,
      utmSource: event.utmSource,
      utmMedium: event.utmMedium,
      utmCampaign: event.utmCampaign,
    }).filter(([, value]) => value !== undefined),
  );
  const shown = { ...event.metadata, ...(Object.keys(context).length > 0 ? { context } : {}) };
  if (Object.keys(shown).length === 0) return html`<span class="muted">No metadata</span>`;
  return html`<details><summary>Metadata</summary><pre>${JSON.stringify(shown, null, 2)}</pre></details>`;
}

function filterForm(view: ContactView, type: string): SafeHtml {
  return html`<form method="get" action="${view.path}#timeline" class="filters">
<div><label for="eventType">Event type</label><input id="eventType" name="eventType" value="${type}" placeholder="page_view" autocomplete="off"></div>
<div><button type="submit">Filter</button>${type ? html` <a href="${view.path}#timeline">All types</a>` : ''}</div></form>`;
}

async function renderTimeline(view: ContactView): Promise<SafeHtml> {
  const type = query(view, 'eventType');
  const beforeId = query(view, 'eventsBefore');
  const events = await listEventsFor(view.app.db, view.workspaceId, {
    contactId: view.contact.id,
    type: type || undefined,
    beforeId: beforeId || undefined,
    limit: PAGE_SIZE + 1,
  });
  const shown = events.slice(0, PAGE_SIZE);
  const here = view.req.originalUrl;
  const next =
    events.length > PAGE_SIZE
      ? `${withQuery(here, { eventsBefore: shown[shown.length - 1].id })}#timeline`
      : null;
  const first = beforeId ? `${withQuery(here, { eventsBefore: null })}#timeline` : null;
  const list =
    shown.length === 0
      ? html`<p class="muted">${type ? `No ${type} event${beforeId ? ' before these' : ''}.` : 'No events yet. Events tracked for this contact (POST …/events) appear here.'}</p>`
      : table({
          caption: 'Events, newest first',
          columns: [{ label: 'When' }, { label: 'Type' }, { label: 'Details' }],
          rows: shown.map((event) => [
            time(event.timestamp),
            html`<code>${event.type}</code>`,
            details(event),
          ]),
        });
  return html`${filterForm(view, type)}${list}
${first || next ? html`<nav class="pager" aria-label="Event pages">${first ? html`<a href="${first}">Newest events</a>` : ''}${next ? html`<a href="${next}" rel="next">Older events</a>` : ''}</nav>` : ''}`;
}

export const timelinePanel: ContactPanel = {
  id: 'timeline',
  title: 'Timeline',
  order: 100,
  wide: true,
  render: renderTimeline,
};
