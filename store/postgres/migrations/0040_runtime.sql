-- The runtime (docs/design.md §5): a refresh token of the form before
-- `<session id>.<secret>` is found by its hash, current (sessions_refresh)
-- or among the last ones the session retired, whose reuse revokes it.
CREATE INDEX sessions_retired_refresh ON sessions USING gin (retired_refresh);
