// "Why" in the console: a contact's membership of a segment explained condition by condition
// (explain.ts), at /app/{ws}/contacts/{contactId}/segments/{segmentId}/why, and the list of the
// workspace's segments with the contact in or out of each, at …/contacts/{contactId}/segments.
import type { Request, Response } from 'express';
import {
  badge,
  emptyState,
  html,
  pageWorkspace,
  type SafeHtml,
  sendPage,
  table,
  time,
  workspacePath,
} from '../console/index.ts';
import { getContact } from '../contacts/index.ts';
import type { AppContext } from '../core/context.ts';
import { describeRule } from './describe.ts';
import { type ExplainedNode, explainMembership } from './explain.ts';
import { findMembershipsOfContact } from './queries.ts';
import { listSegmentPage } from './service.ts';

const GROUP_WORDS = {
  all: 'All of these hold',
  any: 'Any of these holds',
  not: 'This does not hold',
} as const;

const verdict = (passed: boolean) => (passed ? badge('holds', 'success') : badge('does not hold', 'danger'));

function seenText(node: Extract<ExplainedNode, { kind: 'condition' }>): string {
  if ('event' in node.condition) return `${node.seen}${node.seenCapped ? ' or more' : ''} matching events`;
  if (node.seen === null || node.seen === undefined) return 'no value';
  return typeof node.seen === 'string' ? `“${node.seen}”` : JSON.stringify(node.seen);
}

/** The explanation tree as nested lists: each group and condition with its verdict. */
export function renderExplanation(node: ExplainedNode): SafeHtml {
  if (node.kind === 'condition') {
    return html`<li>${verdict(node.passed)} ${node.description} <span class="muted">— saw ${seenText(node)}</span></li>`;
  }
  return html`<li>${verdict(node.passed)} ${GROUP_WORDS[node.kind]}:<ul class="explanation">${node.children.map(renderExplanation)}</ul></li>`;
}

export async function whyPage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const base = workspacePath(res);
  const result = await explainMembership(
    app.db,
    workspaceId,
    String(req.params.contactId),
    String(req.params.segmentId),
  );
  const contact = await getContact(app.db, workspaceId, result.contactId);
  const who = contact.email ?? contact.id;
  const contactPath = `${base}/contacts/${encodeURIComponent(contact.id)}`;
  const segmentPath = `${base}/segments/${encodeURIComponent(result.segmentId)}`;
  const stored = result.member
    ? html`In the segment since ${time(result.enteredAt!)}.`
    : html`Not in the segment.`;
  sendPage(res, {
    title: `Why ${who} is ${result.matches ? 'in' : 'not in'} the segment`,
    section: 'segments',
    crumbs: [
      { label: 'Contacts', href: `${base}/contacts` },
      { label: who, href: contactPath },
      { label: 'Segments', href: `${contactPath}/segments` },
    ],
    body: html`<p>${result.matches ? badge('matches', 'success') : badge('does not match', 'neutral')}
The rule of <a href="${segmentPath}">the segment</a>, evaluated now: ${result.rule}.</p>
<p>${stored} ${result.note ? html`<strong>${result.note}</strong>` : ''}</p>
<ul class="explanation">${renderExplanation(result.explanation)}</ul>`,
  });
}

/** Every segment of the workspace, the contact in or out, each with its "why". */
export async function contactSegmentsPage(app: AppContext, req: Request, res: Response) {
  const workspaceId = pageWorkspace(res).id;
  const base = workspacePath(res);
  const contact = await getContact(app.db, workspaceId, String(req.params.contactId));
  const [segments, memberships] = await Promise.all([
    listSegmentPage(app.db, workspaceId, { page: 1, limit: 200 }),
    findMembershipsOfContact(app.db, workspaceId, contact.id),
  ]);
  const entered = new Map(memberships.map((m) => [m.segment_id, m.entered_at]));
  const who = contact.email ?? contact.id;
  const contactPath = `${base}/contacts/${encodeURIComponent(contact.id)}`;
  sendPage(res, {
    title: `Segments of ${who}`,
    section: 'segments',
    crumbs: [
      { label: 'Contacts', href: `${base}/contacts` },
      { label: who, href: contactPath },
    ],
    body: segments.data.length
      ? table({
          caption: `Segments, and whether ${who} is in each`,
          columns: [{ label: 'Segment' }, { label: 'In it' }, { label: 'Why', hidden: true }],
          rows: segments.data.map((segment) => {
            const since = entered.get(segment.id);
            return [
              html`<a href="${base}/segments/${encodeURIComponent(segment.id)}">${segment.name}</a><br><span class="muted">${describeRule(segment.rules)}</span>`,
              since ? html`${badge('in', 'success')} since ${time(since)}` : badge('out'),
              html`<a href="${contactPath}/segments/${encodeURIComponent(segment.id)}/why">Why ${since ? 'in' : 'out'}: ${segment.name}</a>`,
            ];
          }),
        })
      : emptyState(
          'No segments yet',
          html`<a href="${base}/segments/new">Build one</a> to group contacts by rules.`,
        ),
  });
}
