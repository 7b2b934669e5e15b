package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"time"

	"licensectl/store"
)

func nonceKey(envID, nonce string) []byte { return key(idb(envID), []byte(nonce)) }

// replayed reports, without writing, why the request would be refused as a
// replay, or nil. It lets a login skip the password hash for a replay.
func (r *Runtime) replayed(t *txn, envID string, rp store.Replay) error {
	if err := rp.CheckWindow(t.now, r.o.ReplayWindow); err != nil {
		return err
	}
	var usedUntil time.Time
	if v := t.tx.Bucket(bNonces).Get(nonceKey(envID, rp.Nonce)); len(v) == 8 {
		usedUntil = time.Unix(0, int64(binary.BigEndian.Uint64(v)))
	}
	return store.CheckNonceUnused(usedUntil, t.now)
}

// consumeNonce refuses a replay, writing its audit entry, or records the
// nonce as used until store.Replay.UsedUntil.
func (r *Runtime) consumeNonce(t *txn, ra *store.RuntimeApp, rp store.Replay, what string) error {
	if err := r.replayed(t, ra.Env.ID, rp); err != nil {
		if aerr := t.audit(auditEvent{Event: store.EventRuntimeReplayRejected, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: store.Target{Type: what}, Metadata: map[string]any{"code": store.ErrorCode(err), "nonce": rp.Nonce}}); aerr != nil {
			return aerr
		}
		return err
	}
	exp := timeKey(rp.UsedUntil(t.now, r.o.ReplayWindow))
	k := nonceKey(ra.Env.ID, rp.Nonce)
	if err := t.tx.Bucket(bNonces).Put(k, exp); err != nil {
		return err
	}
	return t.tx.Bucket(bNoncesExpiry).Put(key(exp, k), []byte{})
}

// SweepNonces deletes nonces whose window has passed, at most limit of them,
// and reports how many it deleted.
func (r *Runtime) SweepNonces(ctx context.Context, limit int) (int, error) {
	if due, err := r.db.due(ctx, bNoncesExpiry); err != nil || !due {
		return 0, err
	}
	n := 0
	err := r.db.update(ctx, func(t *txn) error {
		n = 0
		now := timeKey(t.now)
		c := t.tx.Bucket(bNoncesExpiry).Cursor()
		nonces := t.tx.Bucket(bNonces)
		for k, _ := c.First(); k != nil && n < limit && bytes.Compare(k[:8], now) <= 0; k, _ = c.First() {
			nk := clone(k[8:])
			// Only delete the nonce when it still carries this expiry: a
			// later reuse may have extended it.
			if v := nonces.Get(nk); v != nil && bytes.Equal(v, k[:8]) {
				if err := nonces.Delete(nk); err != nil {
					return err
				}
			}
			if err := c.Delete(); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// due reports whether the first entry of an expiry index (keys "expiry
// unix nanos|…") has passed. Sweepers ask it in a read first: a write
// transaction that changes nothing still commits, and every commit sends
// cached validation answers back to the cascade.
func (db *DB) due(ctx context.Context, index []byte) (bool, error) {
	due := false
	err := db.view(ctx, func(t *txn) error {
		k, _ := t.tx.Bucket(index).Cursor().First()
		due = k != nil && bytes.Compare(k[:8], timeKey(t.now)) <= 0
		return nil
	})
	return due, err
}
