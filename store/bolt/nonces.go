package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"time"

	"licensectl/store"
)

// Used nonces are keyed by the end of the minute their window ends in
// (nonceSpan), then environment and nonce: every nonce of a minute sits in
// one key range, so the sweeper deletes a run of whole pages from the front
// of the bucket, and no second index by expiry is written per use. The
// price is on the read side: a nonce is looked up once per minute its window
// could end in (a dozen gets for the default ±300 s window).
const nonceSpan = time.Minute

// nonceBucket is the end of the minute that until falls in: every nonce
// filed under it is spent before then.
func nonceBucket(until time.Time) time.Time { return until.Truncate(nonceSpan).Add(nonceSpan) }

func nonceKey(bucket time.Time, envID, nonce string) []byte {
	return key(timeKey(bucket), idb(envID), []byte(nonce))
}

// nonceKeyParts reads a used_nonces key back: its environment's 16 bytes
// and the nonce. ok is false for a key too short to hold both.
func nonceKeyParts(k []byte) (env, nonce []byte, ok bool) {
	if len(k) <= 8+16 {
		return nil, nil, false
	}
	return k[8:24], k[24:], true
}

// replayed reports, without writing, why the request would be refused as a
// replay, or nil. It lets a login skip the password hash for a replay.
func (r *Runtime) replayed(t *txn, envID string, rp store.Replay) error {
	if err := rp.CheckWindow(t.now, r.o.ReplayWindow); err != nil {
		return err
	}
	// A recorded use ends no later than a timestamp inside the window plus
	// the window, and the ones already past do not matter.
	b := t.tx.Bucket(bNonces)
	var usedUntil time.Time
	for m, last := nonceBucket(t.now), nonceBucket(t.now.Add(2*r.o.ReplayWindow)); !m.After(last); m = m.Add(nonceSpan) {
		if v := b.Get(nonceKey(m, envID, rp.Nonce)); len(v) == 8 {
			if u := time.Unix(0, int64(binary.BigEndian.Uint64(v))); u.After(usedUntil) {
				usedUntil = u
			}
		}
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
	until := rp.UsedUntil(t.now, r.o.ReplayWindow)
	return t.tx.Bucket(bNonces).Put(nonceKey(nonceBucket(until), ra.Env.ID, rp.Nonce), timeKey(until))
}

// dropNonces deletes the used nonces of an environment, for its deletion.
// They are few (a replay window's worth) and not grouped by environment,
// so the bucket is walked.
func (t *txn) dropNonces(envID string) error {
	env := idb(envID)
	c := t.tx.Bucket(bNonces).Cursor()
	for k, _ := c.First(); k != nil; {
		if e, _, ok := nonceKeyParts(k); ok && bytes.Equal(e, env) {
			at := clone(k)
			if err := c.Delete(); err != nil {
				return err
			}
			k, _ = c.Seek(at)
			continue
		}
		k, _ = c.Next()
	}
	return nil
}

// DeleteExpiredNonces implements store.Tx: the front of the bucket, up to
// the first minute that has not ended.
func (t *txn) DeleteExpiredNonces(limit int) (int, error) {
	n := 0
	now := timeKey(t.now)
	c := t.tx.Bucket(bNonces).Cursor()
	for k, _ := c.First(); k != nil && n < limit && bytes.Compare(k[:8], now) <= 0; k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

var _ store.SweepChecker = runtimeStorage{}

// SweepDue implements store.SweepChecker for the sweeps of time-ordered
// buckets; the others cannot tell.
func (s runtimeStorage) SweepDue(ctx context.Context, sw store.Sweep) (bool, error) {
	switch sw {
	case store.SweepOfNonces:
		return s.r.db.due(ctx, bNonces)
	case store.SweepOfSessions:
		return s.r.db.sessionsDue(ctx)
	case store.SweepOfLeases:
		return s.r.db.due(ctx, bLeasesExpiry)
	}
	return true, nil
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
