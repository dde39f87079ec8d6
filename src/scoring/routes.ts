import { access, defineRoute } from '../http/route.ts';
import { WorkspaceParams } from '../http/validation.ts';
import { scoreDistribution } from './distribution.ts';
import {
  ContactParams,
  CreateScoringRuleBody,
  PageQuery,
  ScoreDistributionSchema,
  ScoreHistoryPage,
  ScoringRulePage,
  ScoringRuleParams,
  ScoringRuleSchema,
  ScoringSettingsBody,
  ScoringSettingsSchema,
  UpdateScoringRuleBody,
} from './schemas.ts';
import {
  createScoringRule,
  deleteScoringRule,
  getScoringRule,
  getScoringSettings,
  listRulePage,
  putScoringSettings,
  scoreHistoryPage,
  updateScoringRule,
} from './service.ts';

const tags = ['Lead scoring'];
const read = access.workspace('segments:read');
const write = access.workspace('segments:write');
const rules = '/api/workspaces/{workspaceId}/scoring-rules';
const settings = '/api/workspaces/{workspaceId}/scoring-settings';

export const scoringRoutes = [
  defineRoute({
    method: 'get',
    path: rules,
    operationId: 'scoringRules.list',
    summary: 'List scoring rules, oldest first',
    tags,
    access: read,
    params: WorkspaceParams,
    query: PageQuery,
    responses: { 200: { description: 'A page of rules', schema: ScoringRulePage } },
    handler: async ({ app, workspaceId, query }) => ({
      status: 200,
      body: await listRulePage(app.db, workspaceId, query),
    }),
  }),
  defineRoute({
    method: 'post',
    path: rules,
    operationId: 'scoringRules.create',
    summary: 'Create a scoring rule; it applies to events ingested from now on',
    tags,
    access: write,
    params: WorkspaceParams,
    body: CreateScoringRuleBody,
    responses: { 201: { description: 'The new rule', schema: ScoringRuleSchema } },
    handler: async ({ app, workspaceId, body }) => ({
      status: 201,
      body: await createScoringRule(app.db, workspaceId, { ...body, cooldown: body.cooldown ?? null }),
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${rules}/{ruleId}`,
    operationId: 'scoringRules.get',
    summary: 'Get a scoring rule',
    tags,
    access: read,
    params: ScoringRuleParams,
    responses: { 200: { description: 'The rule', schema: ScoringRuleSchema } },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: await getScoringRule(app.db, workspaceId, params.ruleId),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: `${rules}/{ruleId}`,
    operationId: 'scoringRules.update',
    summary: 'Change a scoring rule (null clears where or cooldown)',
    tags,
    access: write,
    params: ScoringRuleParams,
    body: UpdateScoringRuleBody,
    responses: { 200: { description: 'The updated rule', schema: ScoringRuleSchema } },
    handler: async ({ app, workspaceId, params, body }) => ({
      status: 200,
      body: await updateScoringRule(app.db, workspaceId, params.ruleId, body),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: `${rules}/{ruleId}`,
    operationId: 'scoringRules.delete',
    summary: 'Delete a scoring rule; scores and history it wrote stay',
    tags,
    access: write,
    params: ScoringRuleParams,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ app, workspaceId, params }) => {
      await deleteScoringRule(app.db, workspaceId, params.ruleId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/contacts/{contactId}/score-history',
    operationId: 'contacts.scoreHistory',
    summary: "A contact's lead score changes, newest first",
    description: 'Score history is contact data, so API keys need `contacts:read` (not `segments:read`).',
    tags,
    access: access.workspace('contacts:read'),
    params: ContactParams,
    query: PageQuery,
    responses: { 200: { description: 'A page of score changes', schema: ScoreHistoryPage } },
    handler: async ({ app, workspaceId, params, query }) => ({
      status: 200,
      body: await scoreHistoryPage(app.db, workspaceId, params.contactId, query),
    }),
  }),
  defineRoute({
    method: 'get',
    path: settings,
    operationId: 'scoringSettings.get',
    summary: "The workspace's lead score decay",
    tags,
    access: read,
    params: WorkspaceParams,
    responses: { 200: { description: 'The settings', schema: ScoringSettingsSchema } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await getScoringSettings(app.db, workspaceId),
    }),
  }),
  defineRoute({
    method: 'put',
    path: settings,
    operationId: 'scoringSettings.put',
    summary: 'Set or clear lead score decay',
    description: 'The first period starts now; `{decay: null}` turns decay off.',
    tags,
    access: write,
    params: WorkspaceParams,
    body: ScoringSettingsBody,
    responses: { 200: { description: 'The settings', schema: ScoringSettingsSchema } },
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: await putScoringSettings(app.db, workspaceId, body),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/scoring/distribution',
    operationId: 'scoring.distribution',
    summary: "How the workspace's lead scores are spread: a histogram",
    tags,
    access: read,
    params: WorkspaceParams,
    responses: { 200: { description: 'The distribution', schema: ScoreDistributionSchema } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await scoreDistribution(app.db, workspaceId),
    }),
  }),
];
