-- Whether a web push subscription was stored with proof of who the visitor is (an identity token
-- from the customer's backend) or on a bare anonymousId, which any page holding the publishable key
-- can send. An unverified browser belongs to an anonymous visitor only: it is never sent to once its
-- contact is identified, and a merge into an identified contact drops it (src/channels/identity.ts).
-- Rows stored before this column are unverified: nothing recorded how they were made, and a browser
-- that is a known person's gets verified again when its page subscribes with the identity token.
alter table push_subscriptions add column verified boolean not null default false;
alter table push_subscriptions alter column verified drop default;
