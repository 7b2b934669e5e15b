package bolt

import (
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

// DashboardSessionMember implements store.Tx.
func (t *txn) DashboardSessionMember(id string) (*store.DashboardSession, *store.Member, error) {
	s := new(store.DashboardSession)
	if ok, err := t.get(bDashSessions, id, s); err != nil || !ok {
		return nil, nil, err
	}
	m := new(store.Member)
	if ok, err := t.get(bMembers, s.MemberID, m); err != nil || !ok {
		return s, nil, err
	}
	return s, m, nil
}

// InsertChallenge implements store.Tx. Spent challenges are kept until
// they expire; expired ones are swept first, so the bucket holds at most
// the challenges of the last ten minutes.
func (t *txn) InsertChallenge(key string, expires time.Time) (bool, error) {
	b := t.tx.Bucket(bChallenges)
	now := uint64(t.now.UnixNano())
	err := t.sweep(bChallenges, func(_, v []byte) (bool, error) {
		return len(v) == 8 && binary.BigEndian.Uint64(v) <= now, nil
	})
	if err != nil {
		return false, err
	}
	k := []byte(key)
	if b.Get(k) != nil {
		return false, nil
	}
	return true, b.Put(k, timeKey(expires))
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
