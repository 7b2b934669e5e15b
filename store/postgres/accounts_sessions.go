package postgres

import (
	"time"

	"licensectl/store"
)

// InsertDashboardSession implements store.Tx: the member's expired
// sessions are dropped first, so that sessions do not pile up.
func (t *txn) InsertDashboardSession(s *store.DashboardSession) error {
	if _, err := t.exec(`DELETE FROM dashboard_sessions WHERE member_id = $1 AND expires_at <= $2`, s.MemberID, t.now); err != nil {
		return err
	}
	_, err := t.exec(`INSERT INTO dashboard_sessions (id, member_id, expires_at, doc) VALUES ($1, $2, $3, $4)`,
		s.ID, s.MemberID, s.ExpiresAt, js(s))
	return err
}

// DeleteDashboardSession implements store.Tx.
func (t *txn) DeleteDashboardSession(id string) (string, error) {
	var memberID string
	err := t.tx.QueryRow(t.ctx, `DELETE FROM dashboard_sessions WHERE id = $1 RETURNING member_id::text`, uuidOrNil(id)).Scan(&memberID)
	if noRows(err) {
		return "", nil
	}
	return memberID, err
}

// endDashSessions deletes every dashboard session of a member and returns
// how many there were. A session is deleted rather than marked revoked:
// nothing needs to tell a revoked session from one that never existed, and
// every server reads the table, so the end is immediate everywhere.
func (t *txn) endDashSessions(memberID string) (int, error) {
	n, err := t.exec(`DELETE FROM dashboard_sessions WHERE member_id = $1`, memberID)
	return int(n), err
}

// DashboardSessionMember implements store.Tx. It is read on every
// dashboard request: one query, the session and its member together.
func (t *txn) DashboardSessionMember(id string) (*store.DashboardSession, *store.Member, error) {
	var sraw, mraw []byte
	err := t.tx.QueryRow(t.ctx, `SELECT s.doc, m.doc FROM dashboard_sessions s LEFT JOIN members m ON m.id = s.member_id
		WHERE s.id = $1`, uuidOrNil(id)).Scan(&sraw, &mraw)
	if noRows(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	s, err := decode[store.DashboardSession](sraw)
	if err != nil || mraw == nil {
		return s, nil, err
	}
	m, err := decode[store.Member](mraw)
	return s, m, err
}

// InsertChallenge implements store.Tx. The spent solutions are one table
// for every server, so a solution buys one attempt in all (docs/design.md
// §12): the insert that finds the key present is the second use. Expired
// ones are deleted first, so the table holds at most the challenges of
// the last ten minutes.
func (t *txn) InsertChallenge(key string, expires time.Time) (bool, error) {
	if _, err := t.exec(`DELETE FROM used_challenges WHERE expires_at <= $1`, t.now); err != nil {
		return false, err
	}
	h := store.SumSecret(key)
	n, err := t.exec(`INSERT INTO used_challenges (hash, expires_at) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING`, h[:], expires)
	return n == 1, err
}
