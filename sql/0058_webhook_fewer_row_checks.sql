-- The two hottest inserts of outbound webhooks (a message per event and endpoint at fan-out, a
-- delivery record per attempt) each ran a foreign-key check against webhook_endpoints: a lookup and
-- a row lock per inserted row, about a third of the PostgreSQL work a delivery costs in keys alone.
-- Neither check could fail: fan-out locks the endpoints it targets once per batch (`for key share`),
-- a delivery record is written only in the statement that deletes its attempt (which an endpoint's
-- deletion deletes too, so the two serialise), and the few other writers (a ping, an inbound
-- receipt) lock their endpoint in the same statement. What the keys' cascade did, deleting an
-- endpoint's messages and delivery records with it, deleteEndpoint now does (src/webhooks/endpointQueries.ts);
-- deleting a workspace deletes every table's rows by workspace_id anyway (src/workspaces/deletion.ts).
alter table webhook_messages drop constraint webhook_messages_endpoint_id_fkey;
alter table webhook_deliveries drop constraint webhook_deliveries_endpoint_id_fkey;
