-- The scheduled refresh of time-window segments re-evaluates only the contacts whose events
-- crossed a window's edge since the last pass, instead of every contact of the workspace.
-- refreshed_through: every member was evaluated at or after this time (null: not known, so the
-- next refresh is a whole pass); refresh_started_at: when the whole pass in progress began, which
-- becomes refreshed_through once it ends.
alter table segments add column refreshed_through timestamptz;
alter table segments add column refresh_started_at timestamptz;
