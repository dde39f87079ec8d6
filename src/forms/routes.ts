import { z } from 'zod';
import { access, defineRoute } from '../http/route.ts';
import {
  CreateFormBody,
  FormParams,
  FormSchema,
  SubmissionPage,
  SubmissionsQuery,
  UpdateFormBody,
  WorkspaceParams,
} from './schemas.ts';
import { changeForm, createForm, getForm, listFormsOf, listSubmissions, removeForm } from './service.ts';

const tags = ['Forms'];

export const formRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/forms',
    operationId: 'forms.list',
    summary: 'List forms, newest first',
    tags,
    access: access.workspace('forms:read'),
    params: WorkspaceParams,
    responses: { 200: { description: 'Forms', schema: z.array(FormSchema) } },
    handler: async ({ app, workspaceId }) => ({
      status: 200,
      body: await listFormsOf(app.db, app.config, workspaceId),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/workspaces/{workspaceId}/forms',
    operationId: 'forms.create',
    summary: 'Create a form; it is live at once on its hosted page (hostedUrl)',
    tags,
    access: access.workspace('forms:write'),
    params: WorkspaceParams,
    body: CreateFormBody,
    responses: { 201: { description: 'The new form', schema: FormSchema } },
    handler: async ({ app, workspaceId, body }) => ({
      status: 201,
      body: await createForm(app.db, app.config, workspaceId, body),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/forms/{formId}',
    operationId: 'forms.get',
    summary: 'Get a form',
    tags,
    access: access.workspace('forms:read'),
    params: FormParams,
    responses: { 200: { description: 'The form', schema: FormSchema } },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: await getForm(app.db, app.config, workspaceId, params.formId),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/workspaces/{workspaceId}/forms/{formId}',
    operationId: 'forms.update',
    summary: 'Change a form; submissions already made keep the values they had',
    tags,
    access: access.workspace('forms:write'),
    params: FormParams,
    body: UpdateFormBody,
    responses: { 200: { description: 'The changed form', schema: FormSchema } },
    handler: async ({ app, workspaceId, params, body }) => ({
      status: 200,
      body: await changeForm(app.db, app.config, workspaceId, params.formId, body),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/workspaces/{workspaceId}/forms/{formId}',
    operationId: 'forms.delete',
    summary: 'Delete a form and its submissions; its hosted page answers 404',
    tags,
    access: access.workspace('forms:write'),
    params: FormParams,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ app, workspaceId, params }) => {
      await removeForm(app.db, workspaceId, params.formId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/workspaces/{workspaceId}/forms/{formId}/submissions',
    operationId: 'forms.submissions.list',
    summary: "List a form's submissions, newest first",
    tags,
    access: access.workspace('forms:read'),
    params: FormParams,
    query: SubmissionsQuery,
    responses: { 200: { description: 'One page of submissions', schema: SubmissionPage } },
    handler: async ({ app, workspaceId, params, query }) => ({
      status: 200,
      body: await listSubmissions(app.db, workspaceId, params.formId, query),
    }),
  }),
];
