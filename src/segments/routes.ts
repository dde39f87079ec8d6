import { ContactPage, listContactPage } from '../contacts/index.ts';
import { access, defineRoute } from '../http/route.ts';
import { WorkspaceParams } from '../http/validation.ts';
import { explainMembership } from './explain.ts';
import { previewSegment } from './preview.ts';
import {
  ContactSegmentParams,
  CreateSegmentBody,
  ListSegmentsQuery,
  PreviewSegmentBody,
  SegmentContactsQuery,
  SegmentCountSchema,
  SegmentExplanationSchema,
  SegmentPage,
  SegmentParams,
  SegmentPreviewSchema,
  SegmentSchema,
  SegmentStatisticsSchema,
  UpdateSegmentBody,
} from './schemas.ts';
import {
  createSegment,
  deleteSegment,
  getSegment,
  listSegmentPage,
  toSegment,
  updateSegment,
} from './service.ts';
import { segmentStatistics } from './stats.ts';

const tags = ['Segments'];
const read = access.workspace('segments:read');
const write = access.workspace('segments:write');
const base = '/api/workspaces/{workspaceId}/segments';

export const segmentRoutes = [
  defineRoute({
    method: 'get',
    path: base,
    operationId: 'segments.list',
    summary: 'List segments, oldest first, each with its member count',
    tags,
    access: read,
    params: WorkspaceParams,
    query: ListSegmentsQuery,
    responses: { 200: { description: 'A page of segments', schema: SegmentPage } },
    handler: async ({ app, workspaceId, query }) => ({
      status: 200,
      body: await listSegmentPage(app.db, workspaceId, query),
    }),
  }),
  defineRoute({
    method: 'post',
    path: base,
    operationId: 'segments.create',
    summary: 'Create a segment; its members are computed in the background',
    description:
      'Answers at once with status `computing`; a background job then computes membership page by page ' +
      '(`count` grows as pages finish) and sets status `ready`. Entries emit segment.entered. A rule tree ' +
      'past the cost limits is a 400 naming the limit.',
    tags,
    access: write,
    params: WorkspaceParams,
    body: CreateSegmentBody,
    responses: { 201: { description: 'The new segment, computing', schema: SegmentSchema } },
    errors: { 409: 'The workspace already has SEGMENTS_PER_WORKSPACE segments (the per-workspace cap).' },
    handler: async ({ app, workspaceId, body }) => ({
      status: 201,
      body: toSegment(await createSegment(app, workspaceId, body)),
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/{segmentId}`,
    operationId: 'segments.get',
    summary: 'Get a segment with its member count',
    tags,
    access: read,
    params: SegmentParams,
    responses: { 200: { description: 'The segment', schema: SegmentSchema } },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: toSegment(await getSegment(app.db, workspaceId, params.segmentId)),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/{segmentId}`,
    operationId: 'segments.update',
    summary: 'Rename, describe or change the rules of a segment',
    description:
      'New rules are computed in the background as on creation (status `computing` until done); entries ' +
      'and exits are emitted.',
    tags,
    access: write,
    params: SegmentParams,
    body: UpdateSegmentBody,
    responses: { 200: { description: 'The updated segment', schema: SegmentSchema } },
    handler: async ({ app, workspaceId, params, body }) => ({
      status: 200,
      body: toSegment(await updateSegment(app, workspaceId, params.segmentId, body)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/{segmentId}`,
    operationId: 'segments.delete',
    summary: 'Delete a segment (its memberships go with it, without exit events)',
    tags,
    access: write,
    params: SegmentParams,
    responses: { 204: { description: 'Deleted' } },
    errors: { 409: 'Campaigns are triggered by this segment: the detail names each, and how to free it.' },
    handler: async ({ app, workspaceId, params }) => {
      await deleteSegment(app.db, workspaceId, params.segmentId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${base}/{segmentId}/contacts`,
    operationId: 'segments.contacts',
    summary: 'List the contacts in a segment, newest first',
    tags,
    access: read,
    params: SegmentParams,
    query: SegmentContactsQuery,
    responses: { 200: { description: 'A page of contacts', schema: ContactPage } },
    handler: async ({ app, workspaceId, params, query }) => ({
      status: 200,
      body: await listContactPage(app.db, workspaceId, { segmentId: params.segmentId }, query),
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/{segmentId}/count`,
    operationId: 'segments.count',
    summary: 'Count the contacts in a segment',
    tags,
    access: read,
    params: SegmentParams,
    responses: { 200: { description: 'The member count', schema: SegmentCountSchema } },
    handler: async ({ app, workspaceId, params }) => {
      const segment = await getSegment(app.db, workspaceId, params.segmentId);
      return { status: 200, body: { segmentId: segment.id, count: segment.count, status: segment.status } };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${base}/preview`,
    operationId: 'segments.preview',
    summary: 'Count and sample the contacts an unsaved rule matches; nothing is saved',
    description:
      'The rule is validated exactly as on creation (a 400 names what is wrong). The count is exact up to ' +
      '10,000; past that `exact` is false and the answer is "more than 10,000". The sample holds up to 10 ' +
      'matching contacts, newest first. Evaluated now, against the contacts and events as they are.',
    tags,
    access: read,
    params: WorkspaceParams,
    body: PreviewSegmentBody,
    responses: { 200: { description: 'What the rule matches', schema: SegmentPreviewSchema } },
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: await previewSegment(app.db, workspaceId, body.rules),
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/{segmentId}/stats`,
    operationId: 'segments.stats',
    summary: 'Member count, entries and exits per day over 30 days, the rule in words, refresh state',
    description:
      'Entries and exits are counted per UTC day as memberships change (the same changes that emit ' +
      'segment.entered and segment.exited), kept for 90 days.',
    tags,
    access: read,
    params: SegmentParams,
    responses: { 200: { description: 'The statistics', schema: SegmentStatisticsSchema } },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: await segmentStatistics(app.db, workspaceId, params.segmentId),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/contacts/{contactId}/segments/{segmentId}/explain',
    operationId: 'contacts.explainSegment',
    summary: 'Why a contact is in a segment or not: each condition, what it saw and whether it held',
    description:
      "The segment's rule evaluated for this contact now, its all / any / not tree kept as written: each " +
      'condition with the value it read (attribute or field value, events counted in the window, lead ' +
      'score) and whether it held; the overall result beside the stored membership, and whether they ' +
      'agree (when not, a refresh is pending and `note` says which). Contact data, so API keys need ' +
      '`contacts:read`.',
    tags,
    access: access.workspace('contacts:read'),
    params: ContactSegmentParams,
    responses: { 200: { description: 'The explanation', schema: SegmentExplanationSchema } },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: await explainMembership(app.db, workspaceId, params.contactId, params.segmentId),
    }),
  }),
];
