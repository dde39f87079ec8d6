// The forms of the webhook pages: an endpoint's create and edit forms, and turning what they post
// into the API's request bodies (checked by the API's own schemas, so both say the same).
import type { Request, Response } from 'express';
import { csrfField, formList, formText, html, parseForm, type SafeHtml } from '../console/index.ts';
import { OUTGOING_EVENT_TYPES } from '../outbox/eventTypes.ts';
import { CreateEndpointBody, type Endpoint, UpdateEndpointBody } from './schemas.ts';

const SCHEMES = [
  ['either', 'Either (Standard Webhooks or the hex X-Webhook-Signature)'],
  ['standard', 'Standard Webhooks only'],
  ['hex', 'Hex X-Webhook-Signature only'],
] as const;

function eventBoxes(chosen: readonly string[]): SafeHtml {
  const boxes = OUTGOING_EVENT_TYPES.map(
    (type) =>
      html`<label class="check"><input type="checkbox" name="events" value="${type}"${chosen.includes(type) ? html` checked` : ''}> <code>${type}</code></label>`,
  );
  return html`<fieldset><legend>Events <span class="muted">(none ticked: every type)</span></legend>${boxes}</fieldset>`;
}

function schemeSelect(current: string): SafeHtml {
  return html`<label for="signatureScheme">Signature scheme <span class="muted">(inbound)</span></label>
<select id="signatureScheme" name="signatureScheme">${SCHEMES.map(
    ([value, label]) =>
      html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`,
  )}</select>`;
}

export function createEndpointForm(res: Response, action: string): SafeHtml {
  return html`<form method="post" action="${action}" class="panel stack">${csrfField(res)}
<input type="hidden" name="_back" value="${action}/new">
<fieldset><legend>Direction</legend>
<label class="check"><input type="radio" name="direction" value="OUTBOUND" checked> Outbound: we POST events to your URL</label>
<label class="check"><input type="radio" name="direction" value="INBOUND"> Inbound: you POST events to us</label></fieldset>
<label for="name">Name</label><input id="name" name="name" maxlength="100" autocomplete="off" placeholder="CRM sync">
<label for="url">URL <span class="muted">(outbound)</span></label><input id="url" name="url" type="url" inputmode="url" placeholder="https://example.com/hooks/switchboard" autocomplete="off">
${eventBoxes([])}
<label class="check"><input type="checkbox" name="signed" value="yes" checked> Signed <span class="muted">(inbound: refuse unsigned requests; outbound requests are always signed)</span></label>
${schemeSelect('either')}
<div><button type="submit">Create endpoint</button></div></form>`;
}

export function editEndpointForm(res: Response, action: string, endpoint: Endpoint): SafeHtml {
  const outbound = endpoint.direction === 'OUTBOUND';
  return html`<form method="post" action="${action}" class="panel stack">${csrfField(res)}
<input type="hidden" name="_back" value="${action}/edit">
<label for="name">Name</label><input id="name" name="name" maxlength="100" required autocomplete="off" value="${endpoint.name}">
${
  outbound
    ? html`<label for="url">URL</label><input id="url" name="url" type="url" inputmode="url" required autocomplete="off" value="${endpoint.url ?? ''}">
${eventBoxes(endpoint.events)}`
    : schemeSelect(endpoint.signatureScheme ?? 'either')
}
<label class="check"><input type="checkbox" name="active" value="yes"${endpoint.active ? html` checked` : ''}> Active <span class="muted">(unticked: queued attempts are skipped and nothing more is sent)</span></label>
<div><button type="submit">Save changes</button></div></form>`;
}

const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());

/** The create form as the API's request body. */
export function createBodyOf(req: Request) {
  const direction = formText(req, 'direction') || 'OUTBOUND';
  const inbound = direction === 'INBOUND';
  const events = formList(req, 'events');
  return parseForm(CreateEndpointBody, {
    direction,
    name: optional(formText(req, 'name')),
    url: inbound ? undefined : optional(formText(req, 'url')),
    events: inbound || events.length === 0 ? undefined : events,
    signed: inbound ? formText(req, 'signed') === 'yes' : true,
    signatureScheme: inbound ? optional(formText(req, 'signatureScheme')) : undefined,
  });
}

/** The edit form as the API's PATCH body (the fields its direction has). */
export function updateBodyOf(req: Request, endpoint: Endpoint) {
  const outbound = endpoint.direction === 'OUTBOUND';
  return parseForm(UpdateEndpointBody, {
    name: formText(req, 'name').trim(),
    active: formText(req, 'active') === 'yes',
    ...(outbound
      ? { url: formText(req, 'url').trim(), events: formList(req, 'events') }
      : { signatureScheme: formText(req, 'signatureScheme') }),
  });
}
