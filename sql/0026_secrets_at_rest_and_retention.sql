-- Webhook signing secrets at rest: sealed with AES-256-GCM under ENCRYPTION_KEY, like the channel
-- secrets ({keyId, iv, tag, ciphertext}). SQL cannot encrypt, so the clear-text columns are renamed
-- rather than dropped: the code that runs the migrations (`switchboard migrate`, `npm start`) then
-- seals every row still holding one and clears it (src/webhooks/sealing.ts). Renaming also makes a
-- process still running the previous release fail on these columns instead of reading an inbound
-- endpoint as unsigned. The clear-text columns stay null from then on.
alter table webhook_endpoints rename column secret to secret_plaintext;
alter table webhook_endpoints rename column previous_secret to previous_secret_plaintext;
alter table webhook_endpoints
  add column secret_sealed jsonb check (jsonb_typeof(secret_sealed) = 'object'),
  add column previous_secret_sealed jsonb check (jsonb_typeof(previous_secret_sealed) = 'object');

-- What an idempotency key was first used for (SHA-256 of the item without its key): the same key
-- with another body is a conflict, not a replay. Null for keys claimed before this column existed.
alter table event_idempotency_keys add column request_digest text;

-- An inbound receipt refused for its size keeps the size it had (its body is never stored).
alter table webhook_deliveries add column request_bytes integer;
