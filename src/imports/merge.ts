// Merging an import's staging table into the workspace, inside the import's one transaction:
// contacts upserted, or events matched to their contacts (creating those they name) and inserted,
// then the side effects (scores, segments, campaigns, webhook events) a page of contacts at a time.
import { sql as slonikSql } from 'slonik';
import type { Tx } from '../db/pool.ts';
import { markRepeatedEmails, upsertContacts } from './contactQueries.ts';
import {
  claimRowKeys,
  createPlannedContacts,
  createPlanTable,
  importedTypes,
  insertEvents,
  lockEventContacts,
  markRepeatedKeys,
  planNewContacts,
  resolveContactIds,
  resolveImportedEvents,
} from './eventQueries.ts';
import { type ImportOptions, ImportRefused, type Rejects, refusal, SHOWN_ERRORS } from './loadFile.ts';
import { applyImportEffects, type EffectCounts } from './sideEffects.ts';
import { countSkips, refusedRows, subscribedTypes } from './stagingQueries.ts';

/** Contacts per page of side effects: memory and statement size stay bounded whatever the file. */
const IMPORT_PAGE_CONTACTS = 500;
/**
 * Contacts per segment diff (a page reads only their ids back). A million-event import for 100,000
 * contacts: 200 diffs of 500 took 9.9 s, 100 of 1,000 6.2 s, 20 of 5,000 5.4 s once the
 * memberships' statistics are refreshed after the first page (refreshMembershipStatistics; before
 * that a diff of 5,000 took 7 s).
 */
const IMPORT_SEGMENT_PAGE_CONTACTS = 5_000;

const contactsTaken = (count: number) =>
  `${count} contact${count === 1 ? '' : 's'} this file creates ${count === 1 ? 'was' : 'were'} created by someone ` +
  'else (the same email or anonymousId) while the import ran; nothing was imported: run it again.';

const contactsGone = (count: number) =>
  `${count} contact${count === 1 ? '' : 's'} of this file ${count === 1 ? 'was' : 'were'} deleted or merged ` +
  'while the import ran; nothing was imported: run it again.';

/** Rows the merge refused (an unknown contactId): refuse the import, or reject them too. */
async function refuseOrReject(
  tx: Tx,
  options: ImportOptions,
  staging: string,
  rejects: Rejects,
  refused: number,
) {
  if (refused === 0) return;
  if (!options.skipInvalid) {
    const rows = await refusedRows(tx, staging, SHOWN_ERRORS);
    throw refusal(
      rows.map((row) => ({ line: row.line, reason: row.skip.replace(/^invalid: /, '') })),
      refused,
    );
  }
  let last = 0;
  for (;;) {
    const rows = await refusedRows(tx, staging, 1000, last);
    if (rows.length === 0) return;
    for (const row of rows) await rejects.add({ line: row.line, reason: row.skip.replace(/^invalid: /, '') });
    last = rows.at(-1)!.line;
  }
}

const listens = (types: Set<string> | 'all', type: string) => types === 'all' || types.has(type);

export type Lap = (phase: string) => void;

export async function mergeEvents(
  tx: Tx,
  options: ImportOptions,
  stagingName: string,
  rejects: Rejects,
  lap: Lap,
) {
  const staging = slonikSql.identifier([stagingName]);
  const { workspaceId } = options;
  const types = await subscribedTypes(tx, workspaceId);
  options.progress.phase('matching contacts');
  await markRepeatedKeys(tx, staging);
  await resolveContactIds(tx, workspaceId, staging);
  await refuseOrReject(tx, options, stagingName, rejects, (await countSkips(tx, stagingName)).refused);
  await claimRowKeys(tx, workspaceId, staging);
  await createPlanTable(tx);
  const contactsCreated =
    (await planNewContacts(tx, workspaceId, staging, 'email')) +
    (await planNewContacts(tx, workspaceId, staging, 'anonymous_id'));
  await resolveImportedEvents(tx, workspaceId, staging);
  const gone = await lockEventContacts(tx, workspaceId);
  if (gone > 0) throw new ImportRefused(contactsGone(gone));
  lap('contacts');
  options.progress.phase('inserting events');
  await insertEvents(tx, workspaceId, listens(types, 'event.tracked'));
  lap('events');
  options.progress.phase('scores, segments and webhooks');
  const effects = await applyImportEffects(tx, {
    workspaceId,
    events: true,
    eventTypes: await importedTypes(tx),
    triggerCampaigns: options.triggerCampaigns,
    emitScores: listens(types, 'contact.score_changed'),
    pageSize: IMPORT_PAGE_CONTACTS,
    segmentPageSize: IMPORT_SEGMENT_PAGE_CONTACTS,
    lap,
    createContacts: async () => {
      const taken = await createPlannedContacts(tx, workspaceId, listens(types, 'contact.created'));
      if (taken > 0) throw new ImportRefused(contactsTaken(taken));
    },
  });
  const skips = await countSkips(tx, stagingName);
  return {
    imported: skips.kept,
    duplicates: skips.duplicates,
    alreadyImported: skips.alreadyImported,
    contactsCreated,
    ...effects,
  };
}

export async function mergeContacts(tx: Tx, options: ImportOptions, stagingName: string, lap: Lap) {
  const staging = slonikSql.identifier([stagingName]);
  const types = await subscribedTypes(tx, options.workspaceId);
  options.progress.phase('merging contacts');
  await markRepeatedEmails(tx, staging);
  const { created, updated } = await upsertContacts(tx, options.workspaceId, staging, {
    created: listens(types, 'contact.created'),
    updated: listens(types, 'contact.updated'),
  });
  lap('contacts');
  options.progress.phase('segments and webhooks');
  const effects: EffectCounts = await applyImportEffects(tx, {
    workspaceId: options.workspaceId,
    events: false,
    eventTypes: [],
    triggerCampaigns: options.triggerCampaigns,
    emitScores: false,
    pageSize: IMPORT_PAGE_CONTACTS,
    segmentPageSize: IMPORT_SEGMENT_PAGE_CONTACTS,
    lap,
  });
  const skips = await countSkips(tx, stagingName);
  return {
    created,
    updated,
    unchanged: skips.kept - created - updated,
    duplicates: skips.duplicates,
    entered: effects.entered,
    exited: effects.exited,
    enrollments: effects.enrollments,
  };
}
