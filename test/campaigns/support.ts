// Campaign factories shared by the campaign tests.
import { expect } from 'chai';
import type { Client } from '../support/client.ts';
import { eventually } from '../support/factories.ts';

export const STEPS = [
  { type: 'send', channel: 'email', subject: 'Welcome', body: '<p>Hi</p>' },
  { type: 'wait', duration: 'P2D' },
  { type: 'send', channel: 'push', title: 'Still there?', body: 'Come back', url: 'https://example.com' },
  { type: 'send', channel: 'telegram', text: 'Hello from the bot' },
];

export async function createCampaign(client: Client, base: string, overrides: Record<string, unknown> = {}) {
  const response = await client.post(`${base}/campaigns`, {
    name: 'Welcome',
    trigger: { type: 'event', eventType: 'signup' },
    steps: STEPS,
    ...overrides,
  });
  expect(response.status, response.text).to.equal(201);
  return response.body;
}

export type Enrollment = {
  id: string;
  contactId: string;
  status: string;
  exitReason: string | null;
  stepKey: string | null;
  completedAt: string | null;
  nextStepAt: string | null;
  held: boolean;
  cohorts: Record<string, number>;
};

export async function activeCampaign(client: Client, base: string, overrides: Record<string, unknown>) {
  const campaign = await createCampaign(client, base, overrides);
  const activated = await client.post(`${base}/campaigns/${campaign.id}/activate`);
  expect(activated.status, activated.text).to.equal(200);
  return campaign.id as string;
}

export async function enrollmentsOf(client: Client, base: string, campaignId: string): Promise<Enrollment[]> {
  const response = await client.get(`${base}/campaigns/${campaignId}/enrollments?limit=200`);
  expect(response.status, response.text).to.equal(200);
  return response.body.data;
}

/** The contact's enrollment once `ready` holds for it. */
export async function enrollmentWhen(
  client: Client,
  base: string,
  campaignId: string,
  contactId: string,
  ready: (enrollment: Enrollment) => boolean,
  timeoutMs = 8_000,
) {
  return eventually(async () => {
    const found = (await enrollmentsOf(client, base, campaignId)).find((e) => e.contactId === contactId);
    return found && ready(found) ? found : undefined;
  }, timeoutMs);
}

/** Points the workspace's email channel at a local SMTP sink. */
export async function emailChannel(client: Client, base: string, port: number) {
  const channel = await client.put(`${base}/channels/email`, {
    host: '127.0.0.1',
    port,
    secure: false,
    fromEmail: 'news@acme.test',
  });
  expect(channel.status, channel.text).to.equal(200);
}

/** A segment of the contacts whose `tier` attribute is `gold`, once it is computed: its id. */
export async function goldSegment(client: Client, base: string, name = 'Gold') {
  const created = await client.post(`${base}/segments`, {
    name,
    rules: { attribute: 'tier', op: 'eq', value: 'gold' },
  });
  expect(created.status, created.text).to.equal(201);
  await eventually(
    async () => (await client.get(`${base}/segments/${created.body.id}`)).body.status === 'ready',
  );
  return created.body.id as string;
}

/** A draft broadcast of one email to the segment, at `sendAt` when given. */
export function broadcastTo(segmentId: string, sendAt?: string, name = 'Gold news') {
  return {
    name,
    trigger: { type: 'broadcast', segmentId, ...(sendAt ? { sendAt } : {}) },
    steps: [{ type: 'send', channel: 'email', subject: 'News', body: '<p>News</p>' }],
  };
}
