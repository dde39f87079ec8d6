// The push channel's configuration form in the console: its VAPID subject (the key pair is made
// here on the first save); the public key to copy, the private key never shown.
import { parseForm } from '../../console/index.ts';
import { findChannelConfig } from '../queries.ts';
import type { ChannelSettings } from '../types.ts';
import { PutPushConfigBody } from './schemas.ts';
import { presentPushConfig, putPushConfig } from './service.ts';

export const pushSettings: ChannelSettings = {
  intro:
    'Web Push needs a contact for push services: a mailto: or https: URL. Saving the first subject makes the VAPID key pair.',
  fields: [
    {
      name: 'subject',
      label: 'VAPID subject',
      kind: 'url',
      hint: 'mailto: or https: URL',
      required: true,
      placeholder: 'mailto:ops@example.com',
    },
  ],
  async load(app, workspaceId) {
    const row = await findChannelConfig(app.db, workspaceId, 'push');
    const push = row ? await presentPushConfig(app.db, row) : null;
    return {
      configured: push !== null,
      values: { subject: push?.subject ?? '' },
      secretsSet: {},
      facts: push
        ? [
            { label: 'VAPID public key', value: push.publicKey, copy: true },
            { label: 'VAPID private key', value: 'made here, never shown' },
            { label: 'Subscribed browsers', value: String(push.subscriptions) },
          ]
        : [],
    };
  },
  async save(app, workspaceId, input) {
    await putPushConfig(
      app.db,
      workspaceId,
      parseForm(PutPushConfigBody, { subject: input.text('subject') }),
    );
    return 'Push channel saved.';
  },
};
