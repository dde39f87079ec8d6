// The public web push endpoints. Pages (through /sdk/push.js) read the VAPID key and store their
// subscription with a publishable key and CORS for its origins; the service worker (/sdk/sw.js)
// acknowledges delivery and clicks from any origin with the message's signed token alone.
import type { Request, Response } from 'express';
import { z } from 'zod';
import { access, defineRoute } from '../http/route.ts';
import { ANONYMOUS_ID_UNUSABLE } from '../publicEvents/index.ts';
import { publicRoute } from '../publicKeys/index.ts';
import { AckBody, PushPublicConfig, SubscribeBody, Subscribed } from './schemas.ts';
import { acknowledge, pushPublicKey, subscribe } from './service.ts';

const tags = ['Public'];
const NO_CHANNEL = 'The workspace has no push channel.';

/** The ack carries its own credential (the token), so any site's service worker may send it. */
const AnyOrigin = z.object({
  'Access-Control-Allow-Origin': z
    .literal('*')
    .openapi({ description: 'Any origin: the token is the credential.' }),
});

async function ackPreflight(_app: unknown, _req: Request, res: Response) {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
  res.setHeader('Access-Control-Max-Age', '86400');
  res.status(204).end();
}

const ackRoute = defineRoute({
  method: 'post',
  path: '/api/public/push/ack',
  operationId: 'public.push.ack',
  summary: "The service worker's acknowledgement of a push message: shown (delivered) or clicked",
  description:
    'Sent by /sdk/sw.js with the `ackToken` of the notification. `delivered` emits ' +
    '`message.delivered` (channel push); `clicked` emits `push.clicked` and `message.opened`. Each ' +
    'counts once per message; repeating one changes nothing. CORS: any origin (no cookie, no key).',
  tags,
  access: access.public,
  body: AckBody,
  responses: { 204: { description: 'Recorded (or already recorded)', headers: AnyOrigin } },
  errors: { 404: 'The token is forged, or its message is not a sent push message (any more).' },
  handler: async ({ app, body }) => {
    await acknowledge(app, body.token, body.event);
    return { status: 204, headers: { 'Access-Control-Allow-Origin': '*' } };
  },
});

export const pushRoutes = [
  publicRoute({
    method: 'get',
    path: '/api/public/push/config',
    operationId: 'public.push.config',
    summary: 'The VAPID public key a page subscribes with (publishable key)',
    tags,
    responses: { 200: { description: 'The key', schema: PushPublicConfig } },
    errors: { 404: NO_CHANNEL },
    handler: async ({ app, caller }) => ({
      status: 200,
      body: { publicKey: await pushPublicKey(app, caller.workspaceId) },
    }),
  }),
  publicRoute({
    method: 'post',
    path: '/api/public/push/subscriptions',
    operationId: 'public.push.subscribe',
    summary: "Store a browser's push subscription on the visitor's contact (publishable key)",
    description:
      'The visitor is anonymous (`anonymousId`) unless the page carries an identity token from your ' +
      'backend for an email or contact id. A bare anonymousId reaches only an anonymous contact (one ' +
      'whose contact is identified acts as a fresh anonymous visitor) and the browser is stored ' +
      "unverified: it is never sent a known person's messages. Only https: endpoints of the known push services (FCM, " +
      'Mozilla, Apple, Windows) are accepted. A new subscription stores the event `push.subscribed` ' +
      '(through the ingest pipeline), lifts an earlier push opt-out and emits `push.subscribed`; the ' +
      'same browser posting again for the same visitor only refreshes its keys.',
    tags,
    body: SubscribeBody,
    responses: {
      201: { description: 'A new subscription (or one moved to this visitor)', schema: Subscribed },
      200: { description: 'Already stored for this visitor; keys refreshed', schema: Subscribed },
    },
    errors: {
      404: `${NO_CHANNEL} Or the contactId (verified by its identity token) does not exist.`,
      409: ANONYMOUS_ID_UNUSABLE,
    },
    handler: async ({ app, caller, body, req }) => {
      const { created } = await subscribe(app, caller.workspaceId, body, req.get('user-agent') ?? null);
      return { status: created ? 201 : 200, body: { subscribed: true as const } };
    },
  }),
  { ...ackRoute, preflight: ackPreflight },
];
