-- An endpoint receives the events emitted after it began to listen: its creation, or its
-- re-enabling. `emit` writes an outgoing event only when some active OUTBOUND endpoint of the
-- workspace subscribes to its type (src/outbox/emit.ts), so an event emitted while nobody listened
-- was never kept; the fan-out compares `receives_since` with the event's `occurred_at` (its
-- transaction's start) so that events recorded for other endpoints before this one listened are
-- not delivered to it either: the rule is the same whether or not anyone else listened.
--
-- Existing endpoints receive from their creation, as the fan-out delivered before this column.
alter table webhook_endpoints add column receives_since timestamptz;
update webhook_endpoints set receives_since = created_at;
alter table webhook_endpoints alter column receives_since set not null,
  alter column receives_since set default now();
