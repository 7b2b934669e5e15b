-- Shared counters (docs/design.md §12): the windows of the login-failure
-- throttles and of the mail cap per address, which every server counts
-- into. A key's row is its live window (or a closed one not yet swept):
-- n events counted, counted whether the last hit was, and the window's end.
CREATE TABLE shared_counters (
	key        text PRIMARY KEY,
	n          integer NOT NULL,
	counted    boolean NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX shared_counters_expiry ON shared_counters (expires_at);
