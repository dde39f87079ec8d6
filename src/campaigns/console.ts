// The contact page's campaigns panel (src/contacts/consolePanels.ts): the campaigns the contact was
// enrolled in, with each enrollment's state and why it ended.

import { type BadgeKind, badge, html, type SafeHtml, table, time } from '../console/index.ts';
import type { ContactPanel, ContactView } from '../contacts/index.ts';
import { listEnrollmentsOfContact } from './consoleQueries.ts';

const SHOWN = 20;
const KINDS: Record<string, BadgeKind> = {
  active: 'info',
  completed: 'success',
  converted: 'success',
  exited: 'neutral',
};

async function renderCampaigns(view: ContactView): Promise<SafeHtml> {
  const enrollments = await listEnrollmentsOfContact(view.app.db, view.workspaceId, view.contact.id, SHOWN);
  if (enrollments.length === 0)
    return html`<p class="muted">This contact was never enrolled in a campaign.</p>`;
  return table({
    caption: 'Campaign enrollments',
    columns: [{ label: 'Campaign' }, { label: 'State' }, { label: 'Enrolled' }, { label: 'Ended' }],
    rows: enrollments.map((e) => [
      e.name,
      html`${badge(e.status, KINDS[e.status] ?? 'neutral')}${e.exit_reason ? html` <span class="muted">(${e.exit_reason})</span>` : ''}`,
      time(e.enrolled_at),
      e.completed_at ? time(e.completed_at) : '',
    ]),
  });
}

export const campaignsPanel: ContactPanel = {
  id: 'campaigns',
  title: 'Campaigns',
  order: 50,
  render: renderCampaigns,
};
