// The worker's half of tracking: hits are classified once every hit that could change their class
// has arrived (SETTLE_MS), then human ones take effect. Per workspace, in one transaction per page:
//   1. lock a page of settled, unclassified hits (skip locked: two workers never share a hit);
//   2. add the window's reasons (too soon after the send, several links at once, the honeypot);
//   3. keep the human hits that count: a message's first human open, and its first human click on
//      each URL. Later ones stay in the record as human hits and take no effect, so a forwarded
//      mail or a script holding a token cannot inflate events, scores, triggers or webhooks;
//   4. ingest message.open / message.click for each counted hit through the events pipeline, so
//      segments, campaign triggers, goals and scoring react as to any event;
//   5. emit message.opened / message.clicked for each counted hit, and add them to the message's
//      timeline;
//   6. mark the hits classified.
// "First" is decided against the hits classified before (the job runs one at a time: stately).
// A page is all or nothing, so a crash leaves its hits unclassified for the next run: nothing is
// ingested twice and nothing is lost.

import type { AppContext } from '../core/context.ts';
import type { Tx } from '../db/pool.ts';
import { ingestEvents } from '../events/index.ts';
import { insertMessageEvent } from '../messages/index.ts';
import { emitMany, type OutgoingEvent } from '../outbox/emit.ts';
import { type HitKind, type MachineReason, SETTLE_MS, type WindowHit, windowReasons } from './classify.ts';
import {
  claimSettledHits,
  hitsAround,
  humanHitsBefore,
  markClassified,
  type PendingHit,
  workspacesWithSettledHits,
} from './queries.ts';

const PAGE = 500;

type Classified = PendingHit & { human: boolean; reasons: string[] };

const toWindowHit = (row: {
  id: string;
  kind: HitKind;
  url: string | null;
  occurred_at: string;
}): WindowHit => ({
  id: row.id,
  kind: row.kind,
  url: row.url,
  occurredAt: Date.parse(row.occurred_at),
});

async function classifyPage(tx: Tx, app: AppContext, workspaceId: string, hits: readonly PendingHit[]) {
  const times = hits.map((hit) => Date.parse(hit.occurred_at));
  const margin = SETTLE_MS;
  const from = new Date(Math.min(...times) - margin).toISOString();
  const to = new Date(Math.max(...times) + margin).toISOString();
  const messageIds = [...new Set(hits.map((hit) => hit.message_id))];
  const around = await hitsAround(tx, workspaceId, messageIds, from, to);
  const byMessage = Map.groupBy(around, (row) => row.message_id);
  const minDelayMs = app.config.TRACKING_MIN_MS_AFTER_SEND;
  return hits.map((hit): Classified => {
    const neighbours = (byMessage.get(hit.message_id) ?? [])
      .filter((row) => row.id !== hit.id)
      .map(toWindowHit);
    const sentAt = hit.sent_at === null ? null : Date.parse(hit.sent_at);
    const added: MachineReason[] = windowReasons(toWindowHit(hit), neighbours, sentAt, minDelayMs);
    const reasons = [...new Set([...hit.reasons, ...added])];
    return { ...hit, reasons, human: reasons.length === 0 };
  });
}

function eventMetadata(hit: Classified) {
  return {
    messageId: hit.message_id,
    campaignId: hit.campaign_id,
    channel: hit.channel,
    ...(hit.kind === 'click' ? { url: hit.url } : {}),
  };
}

/**
 * The human hits that take effect: each message's first human open, and its first human click on
 * each URL, counting the hits classified before this page.
 */
async function counted(tx: Tx, workspaceId: string, human: readonly Classified[]) {
  const messageIds = [...new Set(human.map((hit) => hit.message_id))];
  const before = await humanHitsBefore(tx, workspaceId, messageIds);
  const seen = new Set(before.map((hit) => `${hit.message_id} ${hit.kind} ${hit.url ?? ''}`));
  return human.filter((hit) => {
    const key = `${hit.message_id} ${hit.kind} ${hit.url ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The webhooks and timeline entries of a page's counted hits. */
async function announce(tx: Tx, workspaceId: string, hits: readonly Classified[]) {
  const events: OutgoingEvent[] = [];
  for (const hit of hits) {
    const ids = { messageId: hit.message_id, contactId: hit.contact_id, channel: hit.channel };
    const message = { workspace_id: workspaceId, id: hit.message_id };
    if (hit.kind === 'open') {
      events.push({ workspaceId, type: 'message.opened', data: ids });
      await insertMessageEvent(tx, message, 'opened', { hitId: hit.id });
    } else if (hit.url !== null) {
      // Clicks are recorded with the link's URL (pages.ts); only a honeypot has none, never human.
      events.push({ workspaceId, type: 'message.clicked', data: { ...ids, url: hit.url } });
      await insertMessageEvent(tx, message, 'clicked', { hitId: hit.id, url: hit.url });
    }
  }
  await emitMany(tx, events);
}

/** Classifies and applies one page of a workspace's hits; how many it took. */
async function processPage(app: AppContext, workspaceId: string): Promise<number> {
  return app.db.transaction(async (tx) => {
    const hits = await claimSettledHits(tx, workspaceId, SETTLE_MS, PAGE);
    if (hits.length === 0) return 0;
    const classified = await classifyPage(tx, app, workspaceId, hits);
    // Honeypot hits are only evidence against the clicks beside them: never events.
    const human = classified.filter((hit) => hit.human && hit.kind !== 'honeypot');
    const effective = human.length > 0 ? await counted(tx, workspaceId, human) : [];
    if (effective.length > 0) {
      const items = effective.map((hit) => ({
        type: hit.kind === 'open' ? 'message.open' : 'message.click',
        contactId: hit.contact_id,
        metadata: eventMetadata(hit),
        timestamp: hit.occurred_at,
      }));
      await ingestEvents(tx, app.effects.contacts, workspaceId, items, { source: 'system' });
      await announce(tx, workspaceId, effective);
    }
    await markClassified(
      tx,
      workspaceId,
      classified.map(({ id, human: isHuman, reasons }) => ({ id, human: isHuman, reasons })),
    );
    return hits.length;
  });
}

/** Every settled hit, workspace by workspace, page by page. */
export async function processSettledHits(app: AppContext): Promise<number> {
  let total = 0;
  for (const workspaceId of await workspacesWithSettledHits(app.db, SETTLE_MS)) {
    for (let taken = PAGE; taken === PAGE; ) {
      taken = await processPage(app, workspaceId);
      total += taken;
    }
  }
  return total;
}
