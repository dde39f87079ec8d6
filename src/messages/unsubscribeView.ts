// What the /u/{token} page shows: who sends (the email channel's from name, else the workspace's
// name), to which address (masked), and where the contact stands now, so a second visit after an
// opt-out says "you are unsubscribed" and offers the way back instead of the same two buttons.
//
// The address is masked (a•••@example.com): the link travels inside a message that may be
// forwarded, and whoever holds it must not learn the whole address; the first letter and the
// domain are enough for its owner to tell which of their addresses it is.
import { findChannelConfig } from '../channels/index.ts';
import { findContact } from '../contacts/index.ts';
import type { Db } from '../db/pool.ts';
import { escapeHtml, layout } from '../http/html.ts';
import { findWorkspaceById } from '../workspaces/index.ts';
import type { MessageRow } from './rows.ts';
import { ADDRESS_REFUSALS, listSubscriptions, type OptOutReason } from './subscriptionQueries.ts';

/** subscribed; unsubscribed from the message's channel, or from everything; or refused by the address. */
export type StandingState = 'subscribed' | 'channel' | 'all' | 'refused';

export type UnsubscribeView = {
  channel: MessageRow['channel'];
  sender: string;
  address: string | null;
  state: StandingState;
};

/** a•••@example.com: the first character of the local part, and the domain. */
export function maskAddress(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '•••';
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

async function senderName(db: Db, message: MessageRow): Promise<string> {
  if (message.channel === 'email') {
    const email = await findChannelConfig(db, message.workspace_id, 'email');
    const fromName = (email?.settings as { fromName?: string | null } | undefined)?.fromName;
    if (fromName) return fromName;
  }
  return (await findWorkspaceById(db, message.workspace_id))?.name ?? 'the sender';
}

async function standing(db: Db, message: MessageRow): Promise<StandingState> {
  const rows = await listSubscriptions(db, message.workspace_id, message.contact_id);
  const out = rows.filter(
    (row) => row.status === 'unsubscribed' && (row.channel === message.channel || row.channel === 'all'),
  );
  if (out.some((row) => ADDRESS_REFUSALS[row.reason as OptOutReason])) return 'refused';
  if (out.some((row) => row.channel === 'all')) return 'all';
  return out.length > 0 ? 'channel' : 'subscribed';
}

export async function loadUnsubscribeView(db: Db, message: MessageRow): Promise<UnsubscribeView> {
  const contact = await findContact(db, message.workspace_id, message.contact_id);
  const email = message.channel === 'email' ? (message.recipient ?? contact?.email) : contact?.email;
  return {
    channel: message.channel,
    sender: await senderName(db, message),
    address: email ? maskAddress(email) : null,
    state: await standing(db, message),
  };
}

const button = (scope: string, label: string) =>
  `<p><button type="submit" name="scope" value="${scope}">${escapeHtml(label)}</button></p>`;

/** The page for where the contact stands; `resubscribed`: a POST just brought them back. */
export function unsubscribePage(view: UnsubscribeView, resubscribed = false): string {
  const sender = `<strong>${escapeHtml(view.sender)}</strong>`;
  const to = view.address ? ` to <strong>${escapeHtml(view.address)}</strong>` : '';
  const channel = escapeHtml(view.channel);
  const pages: Record<StandingState, [string, string]> = {
    subscribed: [
      'Unsubscribe',
      `<p>You get ${channel} messages from ${sender}${to}. Stop receiving:</p>
<form method="post">${button('channel', `Unsubscribe from ${view.channel}`)}${button('all', 'Unsubscribe from everything')}</form>`,
    ],
    channel: [
      'You are unsubscribed',
      `<p>${sender} sends no ${channel} messages${to} any more.</p>
<form method="post">${button('resubscribe', `Re-subscribe to ${view.channel}`)}${button('all', 'Unsubscribe from everything')}</form>`,
    ],
    all: [
      'You are unsubscribed',
      `<p>${sender} sends no messages${to} any more, on any channel.</p>
<form method="post">${button('resubscribe', 'Re-subscribe')}</form>`,
    ],
    refused: [
      'You are unsubscribed',
      `<p>${sender} sends no ${channel} messages${to}: an earlier message bounced or was reported as spam. To receive them again, ask ${sender}.</p>`,
    ],
  };
  const [title, body] = pages[view.state];
  const h1 = resubscribed && view.state === 'subscribed' ? 'You are subscribed again' : title;
  return layout(h1, `<h1>${escapeHtml(h1)}</h1>\n${body}`);
}
