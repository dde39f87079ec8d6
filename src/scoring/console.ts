// The contact page's lead score panel (src/contacts/consolePanels.ts): the score, its history as an
// inline SVG line drawn on the server, and the latest changes with the rule (or decay, or merge)
// that made each.

import { html, type SafeHtml, sparkline, table, time } from '../console/index.ts';
import type { ContactPanel, ContactView } from '../contacts/index.ts';
import { listRulePage, scoreHistoryPage } from './service.ts';

const HISTORY = 100;
const SHOWN = 10;

const REASONS = { rule: 'Rule', decay: 'Decay', merge: 'Merge' } as const;

async function renderScore(view: ContactView): Promise<SafeHtml> {
  const [history, rules] = await Promise.all([
    scoreHistoryPage(view.app.db, view.workspaceId, view.contact.id, { page: 1, limit: HISTORY }),
    listRulePage(view.app.db, view.workspaceId, { page: 1, limit: 200 }),
  ]);
  const ruleNames = new Map(rules.data.map((rule) => [rule.id, rule.name]));
  const changes = history.data;
  if (changes.length === 0)
    return html`<p><strong>${view.contact.lead_score}</strong></p><p class="muted">No scoring rule has moved this score yet.</p>`;
  const oldestFirst = changes.toReversed();
  const series = [oldestFirst[0].previousScore, ...oldestFirst.map((change) => change.score)];
  const label = `Lead score over the last ${changes.length} changes, from ${series[0]} to ${series[series.length - 1]}`;
  return html`<p><strong>${view.contact.lead_score}</strong> ${sparkline(series, { label, width: 220, height: 40 })}</p>
${table({
  caption: 'Latest score changes',
  columns: [
    { label: 'When' },
    { label: 'What moved it' },
    { label: 'Change', numeric: true },
    { label: 'Score', numeric: true },
  ],
  rows: changes
    .slice(0, SHOWN)
    .map((change) => [
      time(change.createdAt),
      change.reason === 'rule' && change.ruleId
        ? (ruleNames.get(change.ruleId) ?? html`<span class="muted">a deleted rule</span>`)
        : REASONS[change.reason],
      change.delta > 0 ? `+${change.delta}` : String(change.delta),
      change.score,
    ]),
})}`;
}

export const scorePanel: ContactPanel = { id: 'score', title: 'Lead score', order: 20, render: renderScore };
