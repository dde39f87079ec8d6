// Segments: definitions and their membership. A new or edited segment is computed for everyone
// in the request when the workspace is small, otherwise by the `segments.compute` job enqueued in
// the same transaction (status `computing` until it finishes).
import { enrollForSegmentChanges } from '../campaigns/enroll.ts';
import { releaseSegmentTrigger } from '../campaigns/lifecycle.ts';
import { newId } from '../db/ids.ts';
import { pageWindow } from '../db/paginate.ts';
import type { Db, Tx } from '../db/pool.ts';
import type { AppContext } from '../http/context.ts';
import { ConflictError, NotFoundError } from '../http/errors.ts';
import { transactionalDb } from '../jobs/boss.ts';
import { computeSegment, type SegmentChange } from './evaluate.ts';
import {
  campaignsTriggeredBy,
  countContacts,
  countSegments,
  deleteSegment as deleteSegmentRow,
  findSegment,
  insertSegment,
  listSegments,
  lockSegment,
  markSegmentReady,
  type SegmentRow,
  type SegmentWrite,
  type TriggeringCampaign,
  updateSegment as updateSegmentRow,
} from './queries.ts';
import { type Rule, ruleDependencies } from './rules.ts';

/** Up to this many contacts, a new or edited segment is computed before the API answers. */
export const SYNC_COMPUTE_LIMIT = 10_000;
export const COMPUTE_QUEUE = 'segments.compute';

type Services = Pick<AppContext, 'db' | 'boss'>;

export function toSegment(row: SegmentRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    rules: row.rules,
    status: row.status,
    count: row.count,
    computedAt: row.computed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function getSegment(db: Db, workspaceId: string, segmentId: string) {
  const row = await findSegment(db, workspaceId, segmentId);
  if (!row) throw new NotFoundError('Segment');
  return row;
}

export async function listSegmentPage(db: Db, workspaceId: string, page: { page: number; limit: number }) {
  const rows = await listSegments(db, workspaceId, pageWindow(page));
  // A page past the end has no rows to carry the total.
  const total = rows[0]?.total ?? (await countSegments(db, workspaceId));
  return { data: rows.map(toSegment), page: page.page, limit: page.limit, total };
}

/** Computes a segment for every contact now, and lets campaigns act on the entries. */
export async function computeNow(tx: Tx, workspaceId: string, segment: { id: string; rules: Rule }) {
  const changes: SegmentChange[] = await computeSegment(tx, workspaceId, segment);
  await enrollForSegmentChanges(tx, workspaceId, changes);
  return changes;
}

async function writeAndCompute(
  app: Services,
  tx: Tx,
  workspaceId: string,
  segmentId: string,
  write: (input: SegmentWrite) => Promise<void>,
  fields: { name: string; description: string | null; rules: Rule },
) {
  const large = (await countContacts(tx, workspaceId)) > SYNC_COMPUTE_LIMIT;
  await write({
    ...fields,
    dependencies: ruleDependencies(fields.rules),
    status: large ? 'computing' : 'ready',
  });
  if (!large) {
    await computeNow(tx, workspaceId, { id: segmentId, rules: fields.rules });
    await markSegmentReady(tx, workspaceId, segmentId);
    return;
  }
  const version = (await lockSegment(tx, workspaceId, segmentId))!.updated_at;
  await app.boss.send(COMPUTE_QUEUE, { workspaceId, segmentId, version }, { db: transactionalDb(tx) });
}

export async function createSegment(
  app: Services,
  workspaceId: string,
  input: { name: string; description?: string | null; rules: Rule },
) {
  const id = newId('segment');
  const fields = { name: input.name, description: input.description ?? null, rules: input.rules };
  await app.db.transaction((tx) =>
    writeAndCompute(app, tx, workspaceId, id, (write) => insertSegment(tx, workspaceId, id, write), fields),
  );
  return getSegment(app.db, workspaceId, id);
}

export async function updateSegment(
  app: Services,
  workspaceId: string,
  segmentId: string,
  patch: { name?: string; description?: string | null; rules?: Rule },
) {
  await app.db.transaction(async (tx) => {
    if (!(await lockSegment(tx, workspaceId, segmentId))) throw new NotFoundError('Segment');
    const current = (await findSegment(tx, workspaceId, segmentId))!;
    const fields = {
      name: patch.name ?? current.name,
      description: patch.description === undefined ? current.description : patch.description,
      rules: patch.rules ?? current.rules,
    };
    const write = (input: SegmentWrite) => updateSegmentRow(tx, workspaceId, segmentId, input);
    if (patch.rules) return writeAndCompute(app, tx, workspaceId, segmentId, write, fields);
    await write({ ...fields, dependencies: ruleDependencies(fields.rules), status: current.status });
  });
  return getSegment(app.db, workspaceId, segmentId);
}

/** Names each campaign that holds the segment, with what its status allows to let it go. */
function segmentInUse(campaigns: readonly TriggeringCampaign[]): string {
  const named = campaigns.map(
    (campaign) =>
      `"${campaign.name}" (${campaign.id}, ${campaign.status}): ${releaseSegmentTrigger(campaign)}`,
  );
  const subject = campaigns.length === 1 ? 'A campaign is' : `${campaigns.length} campaigns are`;
  return `${subject} triggered by this segment; delete the segment after freeing it. ${named.join('; ')}.`;
}

/**
 * Refused while a campaign's trigger names the segment. The row lock comes first: a campaign
 * being created with this segment holds a key-share lock, so the check below sees it once it commits.
 */
export async function deleteSegment(db: Db, workspaceId: string, segmentId: string) {
  await db.transaction(async (tx) => {
    if (!(await lockSegment(tx, workspaceId, segmentId))) throw new NotFoundError('Segment');
    const campaigns = await campaignsTriggeredBy(tx, workspaceId, segmentId);
    if (campaigns.length > 0) throw new ConflictError(segmentInUse(campaigns), 'segment-in-use');
    await deleteSegmentRow(tx, workspaceId, segmentId);
  });
}
