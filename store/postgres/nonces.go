package postgres

import (
	"time"

	"licensectl/store"
)

// consumeNonce refuses a replay, writing its audit entry, or records the
// nonce as used until store.Replay.UsedUntil. The primary key settles two
// servers racing on one nonce: the insert of one waits for the other's
// commit and then finds the nonce used (docs/design.md §12).
func (r *Runtime) consumeNonce(t *txn, ra *store.RuntimeApp, rp store.Replay, what string) error {
	err := rp.CheckWindow(t.now, r.o.ReplayWindow)
	if err == nil {
		err = t.useNonce(ra.Env.ID, rp.Nonce, rp.UsedUntil(t.now, r.o.ReplayWindow))
	}
	if store.AsError(err) == nil {
		return err
	}
	if aerr := t.audit(auditEvent{Event: store.EventRuntimeReplayRejected, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
		Target: store.Target{Type: what}, Metadata: map[string]any{"code": store.ErrorCode(err), "nonce": rp.Nonce}}); aerr != nil {
		return aerr
	}
	return err
}

// useNonce records nonce as used until until, or returns nonce_reused. A
// nonce past its window that the sweeper has not deleted yet is used again.
func (t *txn) useNonce(envID, nonce string, until time.Time) error {
	n, err := t.exec(`INSERT INTO nonces (env_id, nonce, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, envID, nonce, until)
	if err != nil || n == 1 {
		return err
	}
	var usedUntil time.Time
	if err := t.tx.QueryRow(t.ctx, `SELECT expires_at FROM nonces WHERE env_id = $1 AND nonce = $2 FOR UPDATE`, envID, nonce).Scan(&usedUntil); err != nil {
		return err
	}
	if err := store.CheckNonceUnused(usedUntil, t.now); err != nil {
		return err
	}
	_, err = t.exec(`UPDATE nonces SET expires_at = $3 WHERE env_id = $1 AND nonce = $2`, envID, nonce, until)
	return err
}

// DeleteExpiredNonces implements store.Tx.
func (t *txn) DeleteExpiredNonces(limit int) (int, error) {
	n, err := t.exec(`DELETE FROM nonces WHERE (env_id, nonce) IN (
		SELECT env_id, nonce FROM nonces WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`, t.now, limit)
	return int(n), err
}
