package postgres

import (
	"github.com/jackc/pgx/v5"

	"licensectl/store"
)

// expiredSQL selects, FROM the rows x of table (of an organization
// org_id), those at most $5 that the cutoffs of retentionArgs find expired
// by the time at, oldest first: each row is joined to its organization's
// cutoff, that of its subscription's plan or else the default tier's, so
// that rows of an organization that keeps everything are skipped by the
// query instead of filling the batch.
func expiredSQL(table, at string) string {
	return ` FROM ` + table + ` x
		LEFT JOIN subscriptions s ON s.org_id = x.org_id
		LEFT JOIN unnest($2::text[], $3::timestamptz[]) AS tr(key, cutoff) ON tr.key = nullif(s.doc->>'pl', '')
		WHERE ` + at + ` <= $1 AND ` + at + ` < CASE WHEN tr.key IS NULL THEN $4::timestamptz ELSE tr.cutoff END
		ORDER BY ` + at + `, x.id LIMIT $5`
}

// retentionArgs are the arguments of expiredSQL.
func retentionArgs(c *store.RetentionCutoffs, limit int) []any {
	return []any{c.Youngest, c.Keys, c.Cutoffs, c.Default, limit}
}

// DeleteExpiredAudit implements store.Tx in one statement, which skips
// what is kept however much of it there is: it never stops early.
func (t *txn) DeleteExpiredAudit(c *store.RetentionCutoffs, _ string, limit int) (int, string, error) {
	n, err := t.exec(`DELETE FROM audit WHERE id IN (SELECT x.id`+expiredSQL("audit", "x.created_at")+`)`, retentionArgs(c, limit)...)
	return int(n), "", err
}

// DeleteExpiredDeliveries implements store.Tx. The deliveries go through
// dropDeliveries, which also drops the bodies no other delivery shares.
func (t *txn) DeleteExpiredDeliveries(c *store.RetentionCutoffs, limit int) (int, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT x.id::text`+expiredSQL("webhook_deliveries", "x.done_at"), retentionArgs(c, limit)...)
	if err != nil {
		return 0, err
	}
	done, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(done) == 0 {
		return 0, err
	}
	return len(done), t.dropDeliveries(`id = ANY($1)`, done)
}
