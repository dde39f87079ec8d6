-- Telegram: which chat reaches which contact, the one-time tokens that link them, and the updates
-- the bot's webhook received (stored at once, processed by the worker).

-- A chat linked to a contact, by a /start deep link or because an unknown chat wrote (then the
-- contact is an anonymous one made for it). A contact may have several chats; sends go to the one
-- linked last. For a private chat the chat id is the Telegram user's id.
create table telegram_chats (
  workspace_id text not null,
  chat_id bigint not null,
  contact_id text not null references contacts (id) on delete cascade,
  linked_at timestamptz not null default now(),
  primary key (workspace_id, chat_id)
);
create index telegram_chats_contact_idx on telegram_chats (contact_id, linked_at desc);

-- Deep-link tokens (https://t.me/<bot>?start=<token>): only the SHA-256 of the token is kept, and
-- the row is deleted when it is used, so a token links one chat once.
create table telegram_link_tokens (
  workspace_id text not null,
  token_hash text not null,
  contact_id text not null references contacts (id) on delete cascade,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  primary key (workspace_id, token_hash)
);
create index telegram_link_tokens_contact_idx on telegram_link_tokens (contact_id);
create index telegram_link_tokens_expiry_idx on telegram_link_tokens (expires_at);

-- Updates as Telegram posted them. The key deduplicates Telegram's redeliveries (it resends an
-- update until it gets a 2xx); update ids count per bot, so the bot is part of the key.
create table telegram_updates (
  workspace_id text not null references workspaces (id) on delete cascade,
  bot_id bigint not null,
  update_id bigint not null,
  body jsonb not null,
  received_at timestamptz not null default now(),
  processed_at timestamptz,
  primary key (workspace_id, bot_id, update_id)
);
create index telegram_updates_received_idx on telegram_updates (received_at);
