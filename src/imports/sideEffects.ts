// The side effects of an import, after its rows are merged, walked a page of contacts at a time
// (each page a handful of set-wise statements, whatever its number of events):
// 1. lead scores, for the whole import at once before the pages (src/imports/importScores.ts): the
//    active scoring rules applied to the imported events in the order they happened, cooldowns and
//    once-only rules judged in event time, as ingest judges them;
// 2. with --trigger-campaigns, enrollments of campaigns triggered by the imported events;
// 3. segments re-evaluated for the contacts: every segment for contacts the import created, those
//    reading the imported event types or the score for the others (with --trigger-campaigns,
//    campaigns triggered by the segments entered enroll them).
// Without --trigger-campaigns nothing enrolls: historical events are no reason to message anyone.

import { emitEnrollments, enrollForSegmentChanges, proposeEnrollments } from '../campaigns/index.ts';
import type { Tx } from '../db/pool.ts';
import type { ScoredEvent } from '../scoring/index.ts';
import { reevaluateSegmentsForContacts, type SegmentChange } from '../segments/index.ts';
import {
  activeRules,
  insertEnrollments,
  refreshMembershipStatistics,
  triggeredCampaigns,
} from './effectQueries.ts';
import { stagedEvents } from './eventQueries.ts';
import { scoreClamped, scoreImport } from './importScores.ts';
import { affectedPage } from './stagingQueries.ts';

export type EffectCounts = { scoreChanges: number; entered: number; exited: number; enrollments: number };

export type EffectOptions = {
  workspaceId: string;
  /** An events import (its rows in import_events); false for a contacts import. */
  events: boolean;
  /** The event types imported (segments reading them are re-evaluated). */
  eventTypes: string[];
  triggerCampaigns: boolean;
  /** Whether anyone listens to contact.score_changed. */
  emitScores: boolean;
  pageSize: number;
  /** Contacts per segment diff (only their ids come back to Node). */
  segmentPageSize: number;
  onPage?: (contacts: number) => void;
  /** Creates the contacts the import planned, once their scores are known (an events import). */
  createContacts?: () => Promise<void>;
  /** Ends a phase of the import's clock (scores, then segments). */
  lap?: (phase: string) => void;
};

type Definitions = Awaited<ReturnType<typeof loadDefinitions>>;

async function loadDefinitions(tx: Tx, options: EffectOptions) {
  const rules = options.events ? await activeRules(tx, options.workspaceId) : [];
  const campaigns = options.triggerCampaigns ? await triggeredCampaigns(tx, options.workspaceId) : [];
  const eventCampaigns = options.events ? campaigns.filter((campaign) => campaign.trigger_event_type) : [];
  // The event types whose events a page reads back: those that trigger a campaign.
  const types = [...new Set(eventCampaigns.map((c) => c.trigger_event_type!))].filter((type) =>
    options.eventTypes.includes(type),
  );
  return { rules, eventCampaigns, types };
}

async function enrollForEvents(tx: Tx, workspaceId: string, definitions: Definitions, events: ScoredEvent[]) {
  const proposed = proposeEnrollments(definitions.eventCampaigns, events, []);
  if (proposed.length === 0) return 0;
  const inserted = await insertEnrollments(tx, workspaceId, proposed);
  await emitEnrollments(tx, workspaceId, proposed, inserted);
  return inserted.size;
}

async function segmentPage(
  tx: Tx,
  options: EffectOptions,
  page: readonly { contact_id: string; created: boolean }[],
  scored: boolean,
): Promise<SegmentChange[]> {
  const { workspaceId } = options;
  const created = page.filter((row) => row.created).map((row) => row.contact_id);
  const others = page.filter((row) => !row.created).map((row) => row.contact_id);
  // A contacts import changes fields of every kind: every segment, as a contact write would.
  const all = !options.events;
  const changes = [
    ...(await reevaluateSegmentsForContacts(tx, {
      workspaceId,
      contactIds: created,
      all: true,
      fresh: true,
    })),
    ...(await reevaluateSegmentsForContacts(tx, {
      workspaceId,
      contactIds: others,
      all,
      eventTypes: options.eventTypes,
      score: scored,
    })),
  ];
  if (options.triggerCampaigns) await enrollForSegmentChanges(tx, workspaceId, changes);
  return changes;
}

export async function applyImportEffects(tx: Tx, options: EffectOptions): Promise<EffectCounts> {
  const definitions = await loadDefinitions(tx, options);
  const counts: EffectCounts = { scoreChanges: 0, entered: 0, exited: 0, enrollments: 0 };
  const scoring = {
    workspaceId: options.workspaceId,
    rules: definitions.rules,
    emit: options.emitScores,
    pageSize: options.pageSize,
  };
  const scored = options.events ? await scoreImport(tx, scoring) : { changes: 0, clamped: 0 };
  await options.createContacts?.();
  counts.scoreChanges = scored.changes + (scored.clamped > 0 ? await scoreClamped(tx, scoring) : 0);
  options.lap?.('scores');
  let after = '';
  for (;;) {
    const page = await affectedPage(tx, after, options.segmentPageSize);
    if (page.length === 0) {
      options.lap?.('segments');
      return counts;
    }
    after = page.at(-1)!.contact_id;
    const ids = page.map((row) => row.contact_id);
    const events =
      options.events && definitions.types.length ? await stagedEvents(tx, ids, definitions.types) : [];
    counts.enrollments += await enrollForEvents(tx, options.workspaceId, definitions, events);
    const changes = await segmentPage(tx, options, page, counts.scoreChanges > 0);
    if (counts.entered === 0 && changes.some((change) => change.change === 'entered'))
      await refreshMembershipStatistics(tx);
    for (const change of changes) counts[change.change]++;
    options.onPage?.(page.length);
  }
}
