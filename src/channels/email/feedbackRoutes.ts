import { NotFoundError } from '../../core/errors.ts';
import { access, defineRoute } from '../../http/route.ts';
import { WorkspaceParams } from '../../http/validation.ts';
import { deleteFeedbackEndpoint, FEEDBACK_PROVIDERS, listFeedbackEndpoints } from './feedbackQueries.ts';
import {
  FeedbackEndpointList,
  FeedbackEndpointSchema,
  PutPostmarkFeedbackBody,
  PutSendgridFeedbackBody,
  PutSesFeedbackBody,
} from './feedbackSchemas.ts';
import { putFeedbackEndpoint, putPostmarkEndpoint, toFeedbackEndpoint } from './feedbackService.ts';
import { forgetEmailSending } from './send.ts';

const tags = ['Channels'];
const path = '/api/workspaces/{workspaceId}/channels/email/feedback';
const read = access.workspace('channels:read');
const write = access.workspace('channels:write', { admin: true });
const saved = {
  200: {
    description: 'The endpoint as stored, with the URL to give the provider',
    schema: FeedbackEndpointSchema,
  },
};

export const emailFeedbackRoutes = [
  defineRoute({
    method: 'get',
    path,
    operationId: 'channels.email.feedback.list',
    summary: 'List the provider feedback endpoints (bounces, complaints, deliveries) of the email channel',
    tags,
    access: read,
    params: WorkspaceParams,
    responses: { 200: { description: 'One entry per configured provider', schema: FeedbackEndpointList } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: {
        data: (await listFeedbackEndpoints(app.db, workspaceId)).map((row) =>
          toFeedbackEndpoint(app.config, row),
        ),
      },
    }),
  }),
  defineRoute({
    method: 'put',
    path: `${path}/ses`,
    operationId: 'channels.email.feedback.putSes',
    summary: 'Receive Amazon SES bounces, complaints and deliveries through an SNS topic',
    description:
      'Subscribe the returned `url` (HTTPS) to the SNS topic SES publishes to. Only notifications of ' +
      '`topicArn`, signed by SNS (SignatureVersion 1 or 2), are accepted; the subscription is confirmed ' +
      'automatically once its signature checks out.',
    tags,
    access: write,
    params: WorkspaceParams,
    body: PutSesFeedbackBody,
    responses: saved,
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: toFeedbackEndpoint(app.config, await putFeedbackEndpoint(app.db, workspaceId, 'ses', body)),
    }),
  }),
  defineRoute({
    method: 'put',
    path: `${path}/sendgrid`,
    operationId: 'channels.email.feedback.putSendgrid',
    summary: 'Receive SendGrid’s signed event webhook',
    description:
      'Set the returned `url` as the Event Webhook’s HTTP POST URL, turn on its signature, and give ' +
      'its verification key here. Events are accepted only with a valid ECDSA signature.',
    tags,
    access: write,
    params: WorkspaceParams,
    body: PutSendgridFeedbackBody,
    responses: saved,
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: toFeedbackEndpoint(app.config, await putFeedbackEndpoint(app.db, workspaceId, 'sendgrid', body)),
    }),
  }),
  defineRoute({
    method: 'put',
    path: `${path}/postmark`,
    operationId: 'channels.email.feedback.putPostmark',
    summary: 'Receive Postmark’s bounce, spam complaint and delivery webhooks',
    description:
      'Postmark does not sign its webhooks: set HTTP basic auth and/or a custom header with a secret ' +
      'value on the webhook, and the same here (stored encrypted). Requests without them are refused.',
    tags,
    access: write,
    params: WorkspaceParams,
    body: PutPostmarkFeedbackBody,
    responses: saved,
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: toFeedbackEndpoint(app.config, await putPostmarkEndpoint(app.db, workspaceId, body)),
    }),
  }),
  // One per provider, beside its PUT: a static path owns its methods (src/http/app.ts).
  ...FEEDBACK_PROVIDERS.map((provider) =>
    defineRoute({
      method: 'delete',
      path: `${path}/${provider}`,
      operationId: `channels.email.feedback.delete${provider[0].toUpperCase()}${provider.slice(1)}`,
      summary: `Remove the ${provider} feedback endpoint and its receipt log`,
      tags,
      access: write,
      params: WorkspaceParams,
      responses: { 204: { description: 'Removed: its URL answers 404 from now on' } },
      errors: { 404: `The workspace does not exist here, or it has no ${provider} feedback endpoint.` },
      handler: async ({ app, workspaceId }) => {
        if (!(await deleteFeedbackEndpoint(app.db, workspaceId, provider)))
          throw new NotFoundError(
            'Feedback endpoint',
            `This workspace has no ${provider} feedback endpoint.`,
          );
        forgetEmailSending(workspaceId);
        return { status: 204 };
      },
    }),
  ),
];
