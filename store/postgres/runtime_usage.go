package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

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

// RuntimeRequests implements store.Runtime.
func (r *Runtime) RuntimeRequests(ctx context.Context, orgID string, at time.Time) (int64, error) {
	if !store.ValidID(orgID) {
		return 0, nil
	}
	var n int64
	err := r.db.pool.QueryRow(ctx, `SELECT coalesce(sum(requests), 0) FROM runtime_usage WHERE org_id = $1 AND month = $2`,
		orgID, store.MonthKey(at)).Scan(&n)
	return n, mapError(err)
}
