-- The channel names are the registry's (src/channels/registry.ts), not the database's: the CHECK
-- constraints that listed them are dropped, so a new channel needs no migration of its own to be
-- stored. The service is the only writer and checks every name against the registry; a test holds
-- the tables to it (test/channels/registry.test.ts, docs/decisions/0013-channels-from-the-registry.md).
alter table channel_configs drop constraint channel_configs_channel_check;
alter table messages drop constraint messages_channel_check;
alter table contact_subscriptions drop constraint contact_subscriptions_channel_check;
alter table channel_send_rates drop constraint channel_send_rates_channel_check;
