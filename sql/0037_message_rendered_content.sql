-- What a send rendered, kept on its message: support can answer "what did we send Ada?" with the
-- subject and bodies that went out, not the Liquid source. Written by the statement that records
-- the send (no extra round trip). `rendered_subject` is its own column so a list of messages reads
-- the subjects without reading (and decompressing) the bodies; `rendered` holds the channel's
-- fields (an email's subject, preheader, HTML as sent and text; a push's title, body, url, icon; a
-- Telegram text and parse mode). Both are personal data: they go with the row, by the messages'
-- retention rule and, when the contact is erased, by the messages' foreign key to contacts.
-- Nullable and without a default: adding them rewrites nothing.
alter table messages
  add column rendered_subject text,
  add column rendered jsonb;
