// The API's view of a broadcast's progress (the console's page and stream read the same figures).
import { access, defineRoute } from '../http/route.ts';
import { CampaignProgress, campaignProgress } from './progress.ts';
import { CampaignParams } from './schemas.ts';

export const progressRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/campaigns/{campaignId}/progress',
    operationId: 'campaigns.progress',
    summary:
      "A broadcast's sending progress: messages by status, those not sent by reason, rate and time left",
    description:
      'Read in one statement, cheap enough to poll every second. The rate is the average since the broadcast ' +
      'started (to its finish, or now); the console streams the recent one. Times left are estimates.',
    tags: ['Campaigns'],
    access: access.workspace('campaigns:read'),
    params: CampaignParams,
    responses: { 200: { description: 'The progress', schema: CampaignProgress } },
    errors: { 409: 'The campaign is not a broadcast.' },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: await campaignProgress(app.db, workspaceId, params.campaignId),
    }),
  }),
];
