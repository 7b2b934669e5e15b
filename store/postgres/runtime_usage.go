package postgres

import "time"

// MarkSessionSeen implements store.RuntimeTx: one conditional UPDATE.
func (t *runtimeTxn) MarkSessionSeen(sessionID string, at time.Time) error {
	_, err := t.exec(`UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND (last_seen_at IS NULL OR last_seen_at < $2)`,
		uuidOrNil(sessionID), at)
	return err
}

// AddUsage implements store.RuntimeTx: one statement adds to the month's
// rows, each server its own counts.
func (t *runtimeTxn) AddUsage(month string, orgs []string, requests []int64) error {
	_, err := t.exec(`INSERT INTO runtime_usage (org_id, month, requests)
		SELECT o::uuid, $1, n FROM unnest($2::text[], $3::bigint[]) AS x(o, n)
		ON CONFLICT (org_id, month) DO UPDATE SET requests = runtime_usage.requests + EXCLUDED.requests`,
		month, orgs, requests)
	return err
}
