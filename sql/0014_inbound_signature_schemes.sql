-- Inbound endpoints choose which signatures they accept: the spec's hex X-Webhook-Signature (body
-- only, so it can be replayed), Standard Webhooks (id and timestamp signed, 5-minute tolerance),
-- or either. Existing and new endpoints accept either, as spec-conforming senders expect.
alter table webhook_endpoints
  add column signature_scheme text not null default 'either'
    check (signature_scheme in ('hex', 'standard', 'either'));

-- SHA-256 of the body of an inbound receipt that was hex-signed and created an event: a replay of
-- the same body within the configured window is recorded as a duplicate and creates nothing.
alter table webhook_deliveries add column body_digest text;
create index webhook_deliveries_body_digest_idx on webhook_deliveries (endpoint_id, body_digest, created_at)
  where body_digest is not null;
