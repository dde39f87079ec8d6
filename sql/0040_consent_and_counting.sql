-- Consent before tracking, confirmation limits, and counting a click once.

-- A message that asks for consent (a double opt-in confirmation) is never tracked, whatever the
-- workspace's switches say: no pixel, no rewritten links.
alter table messages add column untracked boolean not null default false;

-- A contact made by a double opt-in submission is unsubscribed from email until the link is
-- followed; the reason says so (and mail reaching it before then is not tracked either).
alter table contact_subscriptions drop constraint contact_subscriptions_reason_check;
alter table contact_subscriptions add constraint contact_subscriptions_reason_check
  check (reason in ('link', 'one_click', 'api', 'provider', 'hard_bounce', 'complaint', 'soft_bounces',
    'unconfirmed'));
