package postgres

import (
	"context"
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

// DashboardSession implements store.Accounts. It is read on every dashboard
// request: one query, the session and its member together.
func (db *DB) DashboardSession(ctx context.Context, id string) (*store.LoginResult, error) {
	conn, err := db.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	var sraw, mraw []byte
	err = conn.QueryRow(ctx, `SELECT s.doc, m.doc FROM dashboard_sessions s JOIN members m ON m.id = s.member_id
		WHERE s.id = $1 AND s.expires_at > $2`, uuidOrNil(id), db.Clock()).Scan(&sraw, &mraw)
	if noRows(err) {
		return nil, store.ErrDashboardToken()
	}
	if err != nil {
		return nil, mapError(err)
	}
	s, err := decode[store.DashboardSession](sraw)
	if err != nil {
		return nil, err
	}
	m, err := decode[store.Member](mraw)
	if err != nil {
		return nil, err
	}
	return &store.LoginResult{Member: m, Session: s}, nil
}

// UseChallenge implements store.Accounts (and, through the server, the
// ALTCHA UsedStore). The spent solutions are one table for every server,
// so a solution buys one attempt in all (docs/design.md §12): the insert
// that finds the key present is the second use. Spent challenges are kept
// until they expire; expired ones are deleted in the same transaction, so
// the table holds at most the challenges of the last ten minutes.
func (db *DB) UseChallenge(ctx context.Context, key string, expires time.Time) (bool, error) {
	if err := store.CheckStorable("key", key); err != nil {
		return false, err
	}
	first := false
	err := db.update(ctx, func(t *txn) error {
		if _, err := t.exec(`DELETE FROM used_challenges WHERE expires_at <= $1`, t.now); err != nil {
			return err
		}
		h := store.SumSecret(key)
		n, err := t.exec(`INSERT INTO used_challenges (hash, expires_at) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING`, h[:], expires)
		first = n == 1
		return err
	})
	return first, err
}
