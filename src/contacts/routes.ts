import { access, defineRoute } from '../http/route.ts';
import { WorkspaceParams } from '../http/validation.ts';
import { mergeContacts } from './merge.ts';
import { toContact } from './present.ts';
import {
  ContactPage,
  ContactParams,
  ContactSchema,
  CreateContactBody,
  ListContactsQuery,
  MergeContactsBody,
  UpdateContactBody,
} from './schemas.ts';
import { createContact, deleteContact, getContact, listContactPage, patchContact } from './service.ts';

const tags = ['Contacts'];
const base = '/api/workspaces/{workspaceId}/contacts';

export const contactRoutes = [
  defineRoute({
    method: 'get',
    path: base,
    operationId: 'contacts.list',
    summary: 'List contacts, newest first, filtered by email, text or segment',
    tags,
    access: access.workspace('contacts:read'),
    params: WorkspaceParams,
    query: ListContactsQuery,
    responses: { 200: { description: 'A page of contacts', schema: ContactPage } },
    errors: { 404: 'The workspace, or the segmentId, does not exist here.' },
    handler: async ({ app, workspaceId, query: { page, limit, ...filter } }) => ({
      status: 200,
      body: await listContactPage(app.db, workspaceId, filter, { page, limit }),
    }),
  }),
  defineRoute({
    method: 'post',
    path: base,
    operationId: 'contacts.create',
    summary: 'Create a contact (or identify an anonymous one)',
    tags,
    access: access.workspace('contacts:write'),
    params: WorkspaceParams,
    body: CreateContactBody,
    responses: {
      201: { description: 'The new contact, already in its segments', schema: ContactSchema },
      200: {
        description:
          'Identify: the anonymous contact with the email, or the one it merged into, with the rest of ' +
          'the body applied as a PATCH would (names and phone set, attributes merged)',
        schema: ContactSchema,
      },
    },
    errors: { 409: 'Another contact already has this email or anonymousId.' },
    handler: async ({ app, workspaceId, body }) => {
      const { contact, created } = await app.db.transaction((tx) =>
        createContact(tx, app.effects.contacts, workspaceId, body),
      );
      return { status: created ? 201 : 200, body: toContact(contact) };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${base}/merge`,
    operationId: 'contacts.merge',
    summary: 'Merge the secondary contact into the primary',
    description:
      "Events, segment memberships, enrollments and score history move to the primary; the primary's " +
      "empty fields take the secondary's; scores add. The secondary is deleted and its id resolves " +
      'to the primary for 30 days.',
    tags,
    access: access.workspace('contacts:write'),
    params: WorkspaceParams,
    body: MergeContactsBody,
    responses: { 200: { description: 'The merged contact', schema: ContactSchema } },
    errors: { 409: 'Both ids name the same contact.' },
    handler: async ({ app, workspaceId, body }) => ({
      status: 200,
      body: toContact(
        await app.db.transaction((tx) =>
          mergeContacts(
            tx,
            app.effects.contacts,
            workspaceId,
            body.primaryContactId,
            body.secondaryContactId,
          ),
        ),
      ),
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/{contactId}`,
    operationId: 'contacts.get',
    summary: 'Get a contact (a merged-away id answers with its primary)',
    tags,
    access: access.workspace('contacts:read'),
    params: ContactParams,
    responses: { 200: { description: 'The contact', schema: ContactSchema } },
    handler: async ({ app, workspaceId, params }) => ({
      status: 200,
      body: toContact(await getContact(app.db, workspaceId, params.contactId)),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/{contactId}`,
    operationId: 'contacts.update',
    summary: 'Update a contact; attributes are merged and null removes a key',
    tags,
    access: access.workspace('contacts:write'),
    params: ContactParams,
    body: UpdateContactBody,
    responses: { 200: { description: 'The updated contact', schema: ContactSchema } },
    errors: { 409: 'Another contact already has this email or anonymousId.' },
    handler: async ({ app, workspaceId, params, body: { attributes, ...fields } }) => ({
      status: 200,
      body: toContact(
        await app.db.transaction((tx) =>
          patchContact(tx, app.effects.contacts, workspaceId, params.contactId, fields, attributes),
        ),
      ),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/{contactId}`,
    operationId: 'contacts.delete',
    summary: 'Erase a contact: the person, their events, memberships, enrollments and score history',
    description:
      'Each segment membership ends with segment.exited, then contact.deleted is emitted. The ' +
      "contact's merge aliases go too: its old ids answer 404.",
    tags,
    access: access.workspace('contacts:write'),
    params: ContactParams,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ app, workspaceId, params }) => {
      await app.db.transaction((tx) => deleteContact(tx, workspaceId, params.contactId));
      return { status: 204 };
    },
  }),
];
