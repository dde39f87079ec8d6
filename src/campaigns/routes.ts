import { RetryAfterHeader } from '../http/openapi.ts';
import { access, defineRoute } from '../http/route.ts';
import { audienceNow, RECOUNT_RETRY_SECONDS, recountAudience } from './audienceStore.ts';
import { type Transition, transitionCampaign } from './lifecycle.ts';
import { Pacing, readPacing, writePacing } from './pacing.ts';
import { previewStep } from './preview.ts';
import { campaignReport } from './report.ts';
import {
  AudienceCounting,
  CampaignAudience,
  CampaignReport,
  PreviewBody,
  PreviewResult,
} from './reportSchemas.ts';
import {
  CampaignPage,
  CampaignParams,
  CampaignSchema,
  CreateCampaignBody,
  EnrollmentPage,
  EnrollmentParams,
  EnrollmentSchema,
  ListCampaignsQuery,
  ListEnrollmentsQuery,
  UpdateCampaignBody,
  WorkspaceParams,
} from './schemas.ts';
import {
  createCampaign,
  deleteCampaign,
  exitEnrollmentManually,
  listCampaignPage,
  listEnrollmentPage,
  requireCampaign,
  toCampaign,
  updateCampaign,
} from './service.ts';

const tags = ['Campaigns'];
const base = '/api/workspaces/{workspaceId}/campaigns';
const read = access.workspace('campaigns:read');
const write = access.workspace('campaigns:write');
/** How long a client should wait before asking for an audience being counted again. */
const retryAfter = { 'Retry-After': String(RECOUNT_RETRY_SECONDS) };

const TRANSITIONS: Record<Transition, string> = {
  activate: 'Activate a draft or paused campaign (emits campaign.started)',
  pause: 'Pause an active campaign: its triggers stop enrolling',
  resume: 'Resume a paused campaign (emits campaign.started)',
  archive: 'Archive a campaign for good',
};

function transitionRoute(transition: Transition) {
  return defineRoute({
    method: 'post',
    path: `${base}/{campaignId}/${transition}`,
    operationId: `campaigns.${transition}`,
    summary: TRANSITIONS[transition],
    tags,
    access: write,
    params: CampaignParams,
    responses: { 200: { description: 'The campaign in its new status', schema: CampaignSchema } },
    errors: { 409: 'The campaign is not in a status this transition applies to.' },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: await app.db.transaction((tx) =>
        transitionCampaign(app, tx, workspaceId, params.campaignId, transition),
      ),
    }),
  });
}

export const campaignRoutes = [
  defineRoute({
    method: 'get',
    path: base,
    operationId: 'campaigns.list',
    summary: 'List campaigns, newest first',
    tags,
    access: read,
    params: WorkspaceParams,
    query: ListCampaignsQuery,
    responses: { 200: { description: 'A page of campaigns', schema: CampaignPage } },
    handler: async ({ app, workspaceId, query: { page, limit, ...filter } }) => ({
      status: 200,
      body: await listCampaignPage(app.db, workspaceId, filter, { page, limit }),
    }),
  }),
  defineRoute({
    method: 'post',
    path: base,
    operationId: 'campaigns.create',
    summary: 'Create a campaign (as a draft)',
    tags,
    access: write,
    params: WorkspaceParams,
    body: CreateCampaignBody,
    responses: { 201: { description: 'The new draft campaign', schema: CampaignSchema } },
    errors: {
      404: "The workspace, the trigger.segmentId or a branch step's if.segment does not exist here.",
    },
    handler: async ({ app, workspaceId, body }) => ({
      status: 201,
      body: await createCampaign(app.db, workspaceId, body),
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/{campaignId}`,
    operationId: 'campaigns.get',
    summary: 'Get a campaign',
    tags,
    access: read,
    params: CampaignParams,
    responses: { 200: { description: 'The campaign', schema: CampaignSchema } },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: toCampaign(await requireCampaign(app.db, workspaceId, params.campaignId)),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/{campaignId}`,
    operationId: 'campaigns.update',
    summary: 'Edit a campaign: any field of a draft, only the name and tracking of an active or paused one',
    tags,
    access: write,
    params: CampaignParams,
    body: UpdateCampaignBody,
    responses: { 200: { description: 'The campaign', schema: CampaignSchema } },
    errors: {
      404: "The workspace, campaign, trigger.segmentId or a branch step's if.segment does not exist here.",
      409: 'The campaign is archived, or active or paused and the edit touches more than its name and tracking.',
    },
    handler: async ({ app, workspaceId, params, body }) => ({
      status: 200,
      body: await app.db.transaction((tx) => updateCampaign(tx, workspaceId, params.campaignId, body)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/{campaignId}`,
    operationId: 'campaigns.delete',
    summary: 'Delete a draft or archived campaign and its enrollments',
    tags,
    access: write,
    params: CampaignParams,
    responses: { 204: { description: 'Deleted' } },
    errors: { 409: 'The campaign is active or paused: archive it first.' },
    handler: async ({ app, workspaceId, params }) => {
      await app.db.transaction((tx) => deleteCampaign(tx, workspaceId, params.campaignId));
      return { status: 204 };
    },
  }),
  ...(['activate', 'pause', 'resume', 'archive'] as const).map(transitionRoute),
  defineRoute({
    method: 'get',
    path: `${base}/{campaignId}/enrollments`,
    operationId: 'campaigns.enrollments',
    summary: "List a campaign's enrollments, newest first",
    tags,
    access: read,
    params: CampaignParams,
    query: ListEnrollmentsQuery,
    responses: { 200: { description: 'A page of enrollments', schema: EnrollmentPage } },
    handler: async ({ app, workspaceId, params, query: { page, limit, ...filter } }) => ({
      status: 200,
      body: await listEnrollmentPage(app.db, workspaceId, params.campaignId, filter, { page, limit }),
    }),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/{campaignId}/enrollments/{enrollmentId}/exit`,
    operationId: 'campaigns.exitEnrollment',
    summary: 'Take a contact out of the campaign now (status exited, exitReason manual)',
    description:
      'The enrollment stops where it is: no further step runs and nothing more is sent for it (a ' +
      'message already queued by a send step still goes). Like every exit it emits no ' +
      '`campaign.contact.completed`; when it was the last active enrollment of a finished campaign, ' +
      '`campaign.completed` follows.',
    tags,
    access: write,
    params: EnrollmentParams,
    responses: { 200: { description: 'The exited enrollment', schema: EnrollmentSchema } },
    errors: {
      404: 'The workspace, campaign or enrollment does not exist here.',
      409: 'The enrollment has already ended (completed, converted or exited).',
    },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: await app.db.transaction((tx) =>
        exitEnrollmentManually(tx, workspaceId, params.campaignId, params.enrollmentId),
      ),
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/{campaignId}/report`,
    operationId: 'campaigns.report',
    summary: 'Report: enrollments by status, messages by status per step and in total, split paths',
    tags,
    access: read,
    params: CampaignParams,
    responses: { 200: { description: 'The report', schema: CampaignReport } },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: await campaignReport(app.db, workspaceId, params.campaignId),
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/{campaignId}/audience`,
    operationId: 'campaigns.audience',
    summary:
      "A broadcast's audience before it sends (a dry run): whom its first send step reaches, who is excluded and why, who is deferred",
    description:
      "Computed from the segment's members with the rules delivery applies (no address on the channel, " +
      'opt-outs, bounces, complaints) and the pacing at the send time (frequency cap, quiet hours). ' +
      'An audience of up to CAMPAIGN_AUDIENCE_LIVE_LIMIT members (5,000 by default) is counted at every ' +
      'request; a larger one is answered at once with its last count (`countedAt`, `stale`) while the ' +
      'worker counts it again when it is out of date, or with a 202 while its first count runs. Nothing ' +
      'the campaign sends is written.',
    tags,
    access: read,
    params: CampaignParams,
    responses: {
      200: { description: 'The audience, counted now or at `countedAt`', schema: CampaignAudience },
      202: {
        description: 'No count has ended yet: one is under way. Ask again after Retry-After seconds.',
        schema: AudienceCounting,
        headers: RetryAfterHeader,
      },
    },
    errors: { 409: 'The campaign is not a broadcast, or has no send step.' },
    handler: async ({ app, workspaceId, params }) => {
      const answer = await audienceNow(app, workspaceId, params.campaignId);
      if ('counted' in answer) return { status: 200, body: answer.counted };
      return { status: 202, body: answer.counting, headers: retryAfter };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${base}/{campaignId}/audience/recount`,
    operationId: 'campaigns.recountAudience',
    summary: "Count a broadcast's audience again, in the background",
    description:
      'Queues a count of the audience in the worker, unless one is under way (it stands for this one). ' +
      'GET …/audience serves the new figures once it ends (`countingSince` is null again).',
    tags,
    access: read, // it changes nothing but the kept count, which every reader may refresh
    params: CampaignParams,
    responses: {
      202: { description: 'A count is under way', schema: AudienceCounting, headers: RetryAfterHeader },
    },
    errors: { 409: 'The campaign is not a broadcast, or has no send step.' },
    handler: async ({ app, workspaceId, params }) => ({
      status: 202,
      body: await recountAudience(app, workspaceId, params.campaignId),
      headers: retryAfter,
    }),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/{campaignId}/preview`,
    operationId: 'campaigns.preview',
    summary:
      'Render a send step for a contact (email: subject, HTML, text; push: title, body, URL, icon; Telegram: text). Nothing is sent',
    tags,
    access: write, // it shows contact data through the template: campaign editors only
    params: CampaignParams,
    body: PreviewBody,
    responses: { 200: { description: 'The rendered message', schema: PreviewResult } },
    errors: {
      400: 'The step is not a send step of the campaign, or its template fails (naming the step, part and line).',
      404: 'The workspace, campaign or contact does not exist here.',
    },
    handler: async ({ app, workspaceId, params, body }) => ({
      status: 200,
      body: await previewStep(app, workspaceId, params.campaignId, body),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/campaign-pacing',
    operationId: 'campaignPacing.get',
    summary: "The workspace's sending pace: frequency cap, quiet hours, default time zone, channel rates",
    tags,
    access: read,
    params: WorkspaceParams,
    responses: { 200: { description: 'The pacing', schema: Pacing } },
    handler: async ({ app, workspaceId }) => ({ status: 200, body: await readPacing(app.db, workspaceId) }),
  }),
  defineRoute({
    method: 'put',
    path: '/api/workspaces/{workspaceId}/campaign-pacing',
    operationId: 'campaignPacing.put',
    summary: "Set the workspace's sending pace (null or absent: no limit)",
    tags,
    access: write,
    params: WorkspaceParams,
    body: Pacing,
    responses: { 200: { description: 'The pacing', schema: Pacing } },
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: await app.db.transaction((tx) => writePacing(tx, workspaceId, body)),
    }),
  }),
];
