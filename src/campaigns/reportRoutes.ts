// Reports over a period through the API: a campaign's (…/campaigns/{id}/report/series) and the
// workspace's (…/report). The console's report pages call the same services.
import { access, defineRoute } from '../http/route.ts';
import { ReportQuery } from './reportPeriod.ts';
import { campaignPeriodReport, workspaceReport } from './reportSeries.ts';
import { PeriodReport } from './reportSeriesSchemas.ts';
import { CampaignParams, WorkspaceParams } from './schemas.ts';

const tags = ['Reports'];
const errors = { 400: 'The period is not one the report knows, or its dates or bucket do not fit it.' };

export const reportRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/campaigns/{campaignId}/report/series',
    operationId: 'campaigns.reportSeries',
    summary:
      "A campaign's report over a period: figures per hour or day and in total, rates, clicks per link",
    description:
      'Sent, delivered, opens (people, machines and privacy proxies apart), clicks (people and machines), ' +
      'bounces by type, complaints, unsubscribes and conversions of the campaign, in UTC hour or day buckets.',
    tags,
    access: access.workspace('campaigns:read'),
    params: CampaignParams,
    query: ReportQuery,
    responses: { 200: { description: 'The report', schema: PeriodReport } },
    errors,
    handler: async ({ app, workspaceId, params, query }) => ({
      status: 200,
      body: await campaignPeriodReport(app.db, workspaceId, params.campaignId, query),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/report',
    operationId: 'workspaces.report',
    summary: "The workspace's report over a period: every message, campaign or transactional",
    description:
      'The same figures as a campaign’s report over a period, for all the messages of the workspace, and the ' +
      'conversions of all its campaigns.',
    tags,
    access: access.workspace('messages:read'),
    params: WorkspaceParams,
    query: ReportQuery,
    responses: { 200: { description: 'The report', schema: PeriodReport } },
    errors,
    handler: async ({ app, workspaceId, query }) => ({
      status: 200,
      body: await workspaceReport(app.db, workspaceId, query),
    }),
  }),
];
