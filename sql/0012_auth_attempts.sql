-- Sign-in and registration attempts, one row per subject an attempt counts against. An attempt is
-- reserved (inserted) before the password is checked, under a per-subject advisory lock, so a burst
-- of concurrent requests cannot all pass the count together. A sign-in that succeeds deletes its
-- own reservation by attempt_id; a failure keeps it. Subjects: 'email-ip:<email> <ip>',
-- 'email:<email>', 'ip:<ip>' (sign-in) and 'register-ip:<ip>' (registration).
alter table signin_failures rename to auth_attempts;
alter index signin_failures_subject_idx rename to auth_attempts_subject_idx;
alter table auth_attempts add column attempt_id uuid;
create index auth_attempts_attempt_idx on auth_attempts (attempt_id) where attempt_id is not null;
