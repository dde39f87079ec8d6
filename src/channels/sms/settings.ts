// The SMS channel's configuration form in the console: a Twilio-compatible account (checked with
// the provider on save), its auth token write-only (left empty, the stored one is sent again), the
// sender, and the two URLs to give the provider (delivery reports, STOP and START replies).
import { parseForm } from '../../console/index.ts';
import { findChannelConfig } from '../queries.ts';
import type { ChannelSettings } from '../types.ts';
import { PutSmsConfigBody } from './schemas.ts';
import { openAuthToken, putSmsConfig, toSmsConfig } from './service.ts';

const orUndefined = (value: string) => (value === '' ? undefined : value);

export const smsSettings: ChannelSettings = {
  intro:
    'Texts go through a Twilio-compatible account: its SID and auth token, and a sending number or a Messaging Service. Saving checks the account with the provider.',
  fields: [
    { name: 'accountSid', label: 'Account SID', required: true, placeholder: 'AC…', group: 'Account' },
    { name: 'authToken', label: 'Auth token', kind: 'secret', required: true, group: 'Account' },
    {
      name: 'apiUrl',
      label: 'API URL',
      kind: 'url',
      hint: 'empty: https://api.twilio.com',
      group: 'Account',
    },
    { name: 'from', label: 'From number', hint: 'E.164, e.g. +14155550100', group: 'Sender' },
    {
      name: 'messagingServiceSid',
      label: 'Or Messaging Service SID',
      placeholder: 'MG…',
      group: 'Sender',
    },
    {
      name: 'defaultRegion',
      label: 'Default region',
      hint: 'ISO country code for numbers written without one, e.g. FR',
      group: 'Sender',
    },
  ],
  async load(app, workspaceId) {
    const row = await findChannelConfig(app.db, workspaceId, 'sms');
    const sms = row ? toSmsConfig(app.config, row) : null;
    return {
      configured: sms !== null,
      values: {
        accountSid: sms?.accountSid ?? '',
        apiUrl: sms?.apiUrl ?? '',
        from: sms?.from ?? '',
        messagingServiceSid: sms?.messagingServiceSid ?? '',
        defaultRegion: sms?.defaultRegion ?? '',
      },
      secretsSet: { authToken: sms?.authTokenSet ?? false },
      facts: sms
        ? [
            { label: 'Delivery reports URL', value: sms.statusCallbackUrl, copy: true },
            { label: 'Incoming messages URL', value: sms.inboundUrl, copy: true },
          ]
        : [],
    };
  },
  async save(app, workspaceId, input) {
    const stored = await findChannelConfig(app.db, workspaceId, 'sms');
    // The API's PUT always takes the token; the page keeps the stored one when the field is left empty.
    const authToken = input.secret('authToken') ?? (stored ? openAuthToken(stored) : undefined);
    const body = parseForm(PutSmsConfigBody, {
      accountSid: input.text('accountSid'),
      authToken,
      from: orUndefined(input.text('from')),
      messagingServiceSid: orUndefined(input.text('messagingServiceSid')),
      defaultRegion: orUndefined(input.text('defaultRegion')) ?? null,
      apiUrl: orUndefined(input.text('apiUrl')),
    });
    await putSmsConfig(app, workspaceId, body);
    return 'SMS channel saved.';
  },
};
