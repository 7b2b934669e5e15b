package bolt

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"licensectl/store"
)

// InsertDashboardSession implements store.Tx: the member's expired
// sessions are dropped first, so that sessions do not pile up.
func (t *txn) InsertDashboardSession(s *store.DashboardSession) error {
	for _, sid := range t.all(bDashSessMem, idb(s.MemberID)) {
		old := new(store.DashboardSession)
		if err := t.mustGet(bDashSessions, sid, "session", old); err != nil {
			return err
		}
		if !t.now.Before(old.ExpiresAt) {
			if err := t.dropDashSession(old); err != nil {
				return err
			}
		}
	}
	if err := t.put(bDashSessions, s.ID, s); err != nil {
		return err
	}
	return t.index(bDashSessMem, idb(s.MemberID), s.ID)
}

// DeleteDashboardSession implements store.Tx.
func (t *txn) DeleteDashboardSession(id string) (string, error) {
	s := new(store.DashboardSession)
	ok, err := t.get(bDashSessions, id, s)
	if err != nil || !ok {
		return "", err
	}
	return s.MemberID, t.dropDashSession(s)
}

// dropDashSession deletes a session and its index entry. A session is
// deleted rather than marked revoked: nothing needs to tell a revoked session
// from one that never existed, and either way its token is refused.
func (t *txn) dropDashSession(s *store.DashboardSession) error {
	if err := t.del(bDashSessions, s.ID); err != nil {
		return err
	}
	return t.unindex(bDashSessMem, idb(s.MemberID), s.ID)
}

// endDashSessions deletes every dashboard session of a member and returns
// how many there were.
func (t *txn) endDashSessions(memberID string) (int, error) {
	sids, err := t.dropPrefix(bDashSessMem, idb(memberID))
	if err != nil {
		return 0, err
	}
	for _, sid := range sids {
		if err := t.del(bDashSessions, sid); err != nil {
			return 0, err
		}
	}
	return len(sids), nil
}

// DashboardSession implements store.Accounts.
func (db *DB) DashboardSession(ctx context.Context, id string) (*store.LoginResult, error) {
	unauth := store.ErrDashboardToken()
	var out *store.LoginResult
	err := db.view(ctx, func(t *txn) error {
		s := new(store.DashboardSession)
		ok, err := t.get(bDashSessions, id, s)
		if err != nil {
			return err
		}
		if !ok || !t.now.Before(s.ExpiresAt) {
			return unauth
		}
		m := new(store.Member)
		ok, err = t.get(bMembers, s.MemberID, m)
		if err != nil {
			return err
		}
		if !ok {
			return unauth
		}
		out = &store.LoginResult{Member: m, Session: s}
		return nil
	})
	return out, err
}

// UseChallenge implements store.Accounts (and, through the server, the
// ALTCHA UsedStore). Spent challenges are kept until they expire; expired
// ones are swept in the same transaction, so the bucket holds at most the
// challenges of the last ten minutes.
func (db *DB) UseChallenge(ctx context.Context, key string, expires time.Time) (bool, error) {
	if err := store.CheckStorable("key", key); err != nil {
		return false, err
	}
	first := false
	err := db.update(ctx, func(t *txn) error {
		b := t.tx.Bucket(bChallenges)
		now := uint64(t.now.UnixNano())
		var stale [][]byte
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(v) == 8 && binary.BigEndian.Uint64(v) <= now {
				stale = append(stale, clone(k))
			}
		}
		for _, k := range stale {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		k := []byte(key)
		if b.Get(k) != nil {
			return nil
		}
		first = true
		return b.Put(k, timeKey(expires))
	})
	return first, err
}

// putAt stores the record v under an arbitrary key (not a UUID).
func (t *txn) putAt(bucket, k []byte, v any) error {
	raw, err := encodeRecord(v)
	if err != nil {
		return fmt.Errorf("encode %s/%x: %w", bucket, k, err)
	}
	return t.tx.Bucket(bucket).Put(k, raw)
}

// getAt reads the record under an arbitrary key; it reports false when absent.
func (t *txn) getAt(bucket, k []byte, v any) (bool, error) {
	raw := t.tx.Bucket(bucket).Get(k)
	if raw == nil {
		return false, nil
	}
	return true, decode(bucket, k, raw, v)
}
