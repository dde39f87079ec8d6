// Segments: definitions and their membership. A new or edited segment is never computed in the
// request: the `segments.compute` job, enqueued in the same transaction, computes it page by page
// in the worker (status `computing` until the last page). A workspace holds at most
// SEGMENTS_PER_WORKSPACE segments.

import { recordAudit } from '../audit/index.ts';
import type { AppContext } from '../core/context.ts';
import { ConflictError, NotFoundError } from '../core/errors.ts';
import { newId } from '../db/ids.ts';
import { pageWindow } from '../db/paginate.ts';
import type { Db, Tx } from '../db/pool.ts';
import { transactionalDb } from '../jobs/boss.ts';
import { segmentInUse } from './inUse.ts';
import {
  campaignsUsingSegment,
  countSegments,
  deleteSegment as deleteSegmentRow,
  findSegment,
  insertSegment,
  listSegments,
  lockSegment,
  lockWorkspaceSegments,
  type SegmentRow,
  type SegmentWrite,
  updateSegment as updateSegmentRow,
} from './queries.ts';
import { type Rule, ruleDependencies } from './rules.ts';

export const COMPUTE_QUEUE = 'segments.compute';

type Services = Pick<AppContext, 'db' | 'boss' | 'config'>;

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

/** Marks the segment computing and enqueues its first page, in the transaction that wrote it. */
async function writeAndCompute(
  app: Services,
  tx: Tx,
  workspaceId: string,
  segmentId: string,
  write: (input: SegmentWrite) => Promise<void>,
  fields: { name: string; description: string | null; rules: Rule },
) {
  await write({ ...fields, dependencies: ruleDependencies(fields.rules), status: 'computing' });
  const version = (await lockSegment(tx, workspaceId, segmentId))!.updated_at;
  await app.boss.send(
    COMPUTE_QUEUE,
    { workspaceId, segmentId, version, after: null },
    { db: transactionalDb(tx) },
  );
}

/** Refuses a segment past the workspace's cap; creations are serialised so concurrent ones count. */
async function checkSegmentCap(app: Services, tx: Tx, workspaceId: string) {
  const cap = app.config.SEGMENTS_PER_WORKSPACE;
  await lockWorkspaceSegments(tx, workspaceId);
  if ((await countSegments(tx, workspaceId)) >= cap) {
    throw new ConflictError(
      `This workspace has ${cap} segments, the most a workspace may have: delete one first.`,
      'segment-limit',
    );
  }
}

export async function createSegment(
  app: Services,
  workspaceId: string,
  input: { name: string; description?: string | null; rules: Rule },
) {
  const id = newId('segment');
  const fields = { name: input.name, description: input.description ?? null, rules: input.rules };
  // Read back inside the transaction: after the commit the job may already have finished.
  return app.db.transaction(async (tx) => {
    await checkSegmentCap(app, tx, workspaceId);
    const write = (input: SegmentWrite) => insertSegment(tx, workspaceId, id, input);
    await writeAndCompute(app, tx, workspaceId, id, write, fields);
    await recordAudit(tx, { workspaceId, action: 'segment.created', targetId: id, after: fields });
    return getSegment(tx, workspaceId, id);
  });
}

export async function updateSegment(
  app: Services,
  workspaceId: string,
  segmentId: string,
  patch: { name?: string; description?: string | null; rules?: Rule },
) {
  return app.db.transaction(async (tx) => {
    if (!(await lockSegment(tx, workspaceId, segmentId))) throw new NotFoundError('Segment');
    const current = (await findSegment(tx, workspaceId, segmentId))!;
    const fields = {
      name: patch.name ?? current.name,
      description: patch.description === undefined ? current.description : patch.description,
      rules: patch.rules ?? current.rules,
    };
    const write = (input: SegmentWrite) => updateSegmentRow(tx, workspaceId, segmentId, input);
    if (patch.rules) await writeAndCompute(app, tx, workspaceId, segmentId, write, fields);
    else await write({ ...fields, dependencies: ruleDependencies(fields.rules), status: current.status });
    const before = { name: current.name, description: current.description, rules: current.rules };
    await recordAudit(tx, {
      workspaceId,
      action: 'segment.updated',
      targetId: segmentId,
      before,
      after: fields,
    });
    return getSegment(tx, workspaceId, segmentId);
  });
}

/**
 * Refused while a campaign's trigger names the segment. The row lock comes first: a campaign
 * being created with this segment holds a key-share lock, so the check below sees it once it commits.
 */
export async function deleteSegment(db: Db, workspaceId: string, segmentId: string) {
  await db.transaction(async (tx) => {
    if (!(await lockSegment(tx, workspaceId, segmentId))) throw new NotFoundError('Segment');
    const campaigns = await campaignsUsingSegment(tx, workspaceId, segmentId);
    if (campaigns.length > 0) throw new ConflictError(segmentInUse(campaigns), 'segment-in-use');
    const { name, description, rules } = (await findSegment(tx, workspaceId, segmentId))!;
    await deleteSegmentRow(tx, workspaceId, segmentId);
    const before = { name, description, rules };
    await recordAudit(tx, { workspaceId, action: 'segment.deleted', targetId: segmentId, before });
  });
}
