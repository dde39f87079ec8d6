// Forms tests' helpers: a workspace with a forms key, and a newsletter form.
import { expect } from 'chai';
import type { Client } from '../support/client.ts';
import { keyClient, listenToEveryEvent, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';

export const NEWSLETTER = {
  name: 'Newsletter',
  fields: [
    { key: 'email', label: 'Email', type: 'email', required: true, mapTo: { contactField: 'email' } },
    { key: 'firstName', label: 'First name', type: 'text', mapTo: { contactField: 'firstName' } },
    { key: 'company', label: 'Company', type: 'text', mapTo: { attribute: 'company' } },
    { key: 'consent', label: 'I agree to receive the newsletter', type: 'checkbox', required: true },
    { key: 'source', label: 'Source', type: 'hidden', value: 'footer' },
  ],
  successMessage: 'Thanks! You are on the list.',
};

export async function formsWorkspace(admin?: Client, workspaceId?: string) {
  const owner = admin && workspaceId ? { client: admin, workspaceId } : await workspaceWithAdmin('Forms Co');
  if (!workspaceId) await listenToEveryEvent(owner.client, owner.workspaceId); // tests read the outbox
  const { client } = await keyClient(owner.client, owner.workspaceId, [
    'forms:read',
    'forms:write',
    'contacts:read',
    'events:read',
  ]);
  return {
    admin: owner.client,
    client,
    workspaceId: owner.workspaceId,
    base: `/api/workspaces/${owner.workspaceId}`,
  };
}

export async function makeForm(client: Client, base: string, overrides: Record<string, unknown> = {}) {
  const created = await client.post(`${base}/forms`, { ...NEWSLETTER, ...overrides });
  expect(created.status, created.text).to.equal(201);
  return created.body as { id: string; hostedUrl: string };
}

/** POSTs to the hosted form as a browser or script would, from wherever `baseUrl` says. */
export function submitForm(
  formId: string,
  body: string | FormData,
  headers: Record<string, string> = {},
  baseUrl = server().baseUrl,
) {
  return fetch(`${baseUrl}/f/${formId}`, { method: 'POST', body, headers, redirect: 'manual' });
}
