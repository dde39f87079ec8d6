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

-- When a submission's confirmation email was sent (null: none was, by the limits, or none was
-- needed). The limits count these: one per address and form while pending in the window, and a
-- ceiling per address across the workspace's forms.
alter table form_submissions add column confirmation_sent_at timestamptz;
create index form_submissions_confirmations_idx on form_submissions (workspace_id, contact_id, confirmation_sent_at)
  where confirmation_sent_at is not null;
create index form_submissions_contact_idx on form_submissions (workspace_id, contact_id, form_id)
  where confirmation <> 'none';
