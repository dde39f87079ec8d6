// Campaign factories shared by the campaign tests.
import { expect } from 'chai';
import type { Client } from '../support/client.ts';

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
