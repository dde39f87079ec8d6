// The contact page's segments panel (src/contacts/consolePanels.ts): the segments the contact is in,
// with when they entered each; and the segments the contact list's filter offers.

import { html, type SafeHtml, table, time, workspacePath } from '../console/index.ts';
import type { ContactPanel, ContactView, SegmentChoice } from '../contacts/index.ts';
import type { AppContext } from '../core/context.ts';
import { listMembershipsOfContact, listSegmentNames } from './consoleQueries.ts';

async function renderSegments(view: ContactView): Promise<SafeHtml> {
  const memberships = await listMembershipsOfContact(view.app.db, view.workspaceId, view.contact.id);
  if (memberships.length === 0) return html`<p class="muted">This contact is in no segment.</p>`;
  const base = workspacePath(view.res);
  return table({
    caption: 'Segments of this contact',
    columns: [{ label: 'Segment' }, { label: 'Entered' }],
    rows: memberships.map((m) => [
      html`<a href="${base}/contacts?segment=${encodeURIComponent(m.segment_id)}">${m.name}</a>`,
      time(m.entered_at),
    ]),
  });
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
