package bolt

import (
	"context"
	"encoding/hex"
	"time"

	"licensectl/store"
)

// Validate implements store.Runtime. It is one read transaction and writes
// nothing: a device whose last_seen_at is stale is queued for the
// background flusher instead.
func (r *Runtime) Validate(ctx context.Context, c store.RuntimeClient, accessToken string) (*store.Validation, error) {
	var sum [32]byte
	if accessToken != "" {
		sum = store.SumSecret(accessToken)
	}
	var out *store.Validation
	err := r.db.view(ctx, func(t *txn) error {
		txid := t.tx.ID()
		if accessToken != "" {
			if out = r.valid.get(sum, txid, c, t.now); out != nil {
				return nil
			}
		}
		ra, err := r.resolve(t, c)
		if err != nil {
			return err
		}
		var s *sessionRecord
		if accessToken != "" {
			if s, err = r.findByAccess(t, accessToken, hex.EncodeToString(sum[:])); err != nil {
				return err
			}
		}
		reason, v, err := r.cascade(t, ra, s, true)
		if err != nil {
			return err
		}
		var lease *leaseRecord
		if reason == "" && v.lic != nil {
			if reason, lease, err = r.leaseReason(t, v); err != nil {
				return err
			}
		}
		until := farFuture
		if reason != "" {
			out = &store.Validation{Reason: reason}
		} else {
			ents, turns, err := r.entitlements(t, v)
			if err != nil {
				return err
			}
			out = &store.Validation{Valid: true, Entitlements: ents, ExpiresAt: s.AccessExpiresAt}
			r.NoteSeen(v.dev, v.s.ID, t.now)
			until = minTime(validUntil(v, t.now, r.o.SeenInterval), turns)
			if lease != nil {
				// The answer turns to lease_required when the lease runs
				// out, which no write announces.
				until = minTime(until, lease.ExpiresAt)
			}
		}
		if accessToken != "" {
			r.valid.put(sum, &validEntry{txid: txid, client: c, v: out, until: until})
		}
		return nil
	})
	return out, err
}

// farFuture bounds cached invalid answers, which time does not change.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// PrepareRefresh implements store.RefreshPreparer: it signs the rotated
// access token outside the write transaction (see presigned), from a read
// of the session.
func (s runtimeStorage) PrepareRefresh(ctx context.Context, c store.RuntimeClient, token string, seed *store.SessionSeed) {
	r := s.r
	var preApp *store.RuntimeApp // set, with preSub, when the token can be presigned
	var preSub store.SessionSubject
	var sid string
	_ = r.db.view(ctx, func(t *txn) error {
		ra, err := r.resolve(t, c)
		if err != nil {
			return nil
		}
		rec, err := cachedGet[sessionRecord](r.cache, t, tagSession, bSessions, t.refreshSessionID(token))
		if err != nil || rec == nil {
			return nil
		}
		if current, _ := store.RefreshState(store.HashSecret(token), rec.RefreshHash, rec.RetiredRefresh, false); !current {
			return nil
		}
		v, err := r.records(t, rec, false)
		if err != nil || v.Reason(ra, t.now, false) != "" {
			return nil
		}
		ents, err := runtimeTxn{txn: t, r: r}.SessionEntitlements(&v)
		if err != nil {
			return nil
		}
		preApp, preSub, sid = ra, v.Subject(ents), rec.ID
		return nil
	})
	if preApp != nil {
		ts := tokenSeed{SessionID: sid, JTI: seed.JTI}
		r.presign(preApp, preSub, &ts)
		seed.Prepared = ts.pre
	}
}
