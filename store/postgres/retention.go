package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

var _ store.AuditRetention = (*DB)(nil)

// minRetention is the youngest an entry can be and still be removed: no
// tier keeps its log for less than a day, so nothing younger is looked at.
const minRetention = 24 * time.Hour

// PruneAudit implements store.AuditRetention: the oldest audit entries, and
// the oldest finished deliveries, past their organization's retention, at
// most batch of each, in one short transaction. Every server runs the
// pass; it takes the pass's advisory lock and does nothing (0) when another
// server holds it (docs/design.md §12).
//
// An organization's retention is its tier's, the tier of its subscription's
// plan (the default tier when the plan is unset or no longer configured), as
// bbolt reads it; here the database joins each entry to it, so entries of an
// organization that keeps everything are skipped by the query instead of
// filling the batch.
func (db *DB) PruneAudit(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		return 0, nil
	}
	removed := 0
	err := db.update(ctx, func(t *txn) error {
		removed = 0
		if ok, err := t.passLock("audit retention"); err != nil || !ok {
			return err
		}
		p := t.db.BillingPolicy()
		// The cutoff of each tier: entries older are expired; none for a
		// tier that keeps its log for ever.
		cutoff := func(tier *store.Tier) *time.Time {
			if d := tier.AuditLogRetentionDays; d >= 0 {
				c := t.now.AddDate(0, 0, -int(d))
				return &c
			}
			return nil
		}
		var keys []string
		var cutoffs []*time.Time
		for i := range p.Tiers {
			if tier := &p.Tiers[i]; p.Tier(tier.Key) == tier { // the first of a key is the one in force
				keys = append(keys, tier.Key)
				cutoffs = append(cutoffs, cutoff(tier))
			}
		}
		youngest := t.now.Add(-minRetention)
		// expired joins the rows x (of an organization org_id) to their
		// organization's cutoff c: its plan's tier's, else the default's.
		expired := func(table, at string) string {
			return ` FROM ` + table + ` x
				LEFT JOIN subscriptions s ON s.org_id = x.org_id
				LEFT JOIN unnest($2::text[], $3::timestamptz[]) AS tr(key, cutoff) ON tr.key = nullif(s.doc->>'pl', '')
				WHERE ` + at + ` <= $1 AND ` + at + ` < CASE WHEN tr.key IS NULL THEN $4::timestamptz ELSE tr.cutoff END
				ORDER BY ` + at + `, x.id LIMIT $5`
		}
		args := []any{youngest, keys, cutoffs, cutoff(p.DefaultTier()), batch}
		n, err := t.exec(`DELETE FROM audit WHERE id IN (SELECT x.id`+expired("audit", "x.created_at")+`)`, args...)
		if err != nil {
			return err
		}
		removed = int(n)
		var done []string
		rows, err := t.tx.Query(t.ctx, `SELECT x.id::text`+expired("webhook_deliveries", "x.done_at"), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			done = append(done, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(done) == 0 {
			return err
		}
		if err := t.dropDeliveries(`id = ANY($1)`, done); err != nil {
			return err
		}
		removed += len(done)
		return nil
	})
	return removed, err
}
