// The contact page's segments panel (src/contacts/consolePanels.ts): the segments the contact is in,
// with when they entered each; and the segments the contact list's filter offers.

import { html, type SafeHtml, table, time, workspacePath } from '../console/index.ts';
import type { ContactPanel, ContactView, SegmentChoice } from '../contacts/index.ts';
import type { AppContext } from '../core/context.ts';
import { listMembershipsOfContact, listSegmentNames } from './consoleQueries.ts';

async function renderSegments(view: ContactView): Promise<SafeHtml> {
  const memberships = await listMembershipsOfContact(view.app.db, view.workspaceId, view.contact.id);
  const base = workspacePath(view.res);
  const contactPath = `${base}/contacts/${encodeURIComponent(view.contact.id)}`;
  // Every segment, in or out, with the rule evaluated for this contact: the "why" pages.
  const why = html`<p><a href="${contactPath}/segments">Why in or out of each segment</a></p>`;
  if (memberships.length === 0) return html`<p class="muted">This contact is in no segment.</p>${why}`;
  const segments = table({
    caption: 'Segments of this contact',
    columns: [{ label: 'Segment' }, { label: 'Entered' }, { label: 'Why' }],
    rows: memberships.map((m) => [
      html`<a href="${base}/contacts?segment=${encodeURIComponent(m.segment_id)}">${m.name}</a>`,
      time(m.entered_at),
      html`<a href="${contactPath}/segments/${encodeURIComponent(m.segment_id)}/why">Why</a>`,
    ]),
  });
  return html`${segments}${why}`;
}

export const segmentsPanel: ContactPanel = {
  id: 'segments',
  title: 'Segments',
  order: 30,
  render: renderSegments,
};

export function segmentChoices(app: AppContext, workspaceId: string): Promise<SegmentChoice[]> {
  return listSegmentNames(app.db, workspaceId).then((rows) => [...rows]);
}
