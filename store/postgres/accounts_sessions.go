package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

// openDashSession starts a dashboard session for a member, and drops the
// member's expired ones so that sessions do not pile up.
func (t *txn) openDashSession(memberID string, ttl time.Duration) (*store.DashboardSession, error) {
	if _, err := t.exec(`DELETE FROM dashboard_sessions WHERE member_id = $1 AND expires_at <= $2`, memberID, t.now); err != nil {
		return nil, err
	}
	s := &store.DashboardSession{ID: store.NewID(), MemberID: memberID, CreatedAt: t.now, ExpiresAt: t.now.Add(ttl)}
	_, err := t.exec(`INSERT INTO dashboard_sessions (id, member_id, expires_at, doc) VALUES ($1, $2, $3, $4)`,
		s.ID, s.MemberID, s.ExpiresAt, js(s))
	if err != nil {
		return nil, err
	}
	return s, nil
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

// RevokeDashboardSession implements store.Accounts. Revoking a session that
// is gone is not an error.
func (db *DB) RevokeDashboardSession(ctx context.Context, id string) error {
	return db.update(ctx, func(t *txn) error {
		var memberID string
		err := t.tx.QueryRow(t.ctx, `DELETE FROM dashboard_sessions WHERE id = $1 RETURNING member_id::text`, uuidOrNil(id)).Scan(&memberID)
		if noRows(err) {
			return nil
		}
		if err != nil {
			return err
		}
		m, err := doc[store.Member](t, `SELECT doc FROM members WHERE id = $1`, memberID)
		if err != nil || m == nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventMemberLogout, OrgID: m.OrgID, Target: store.Target{Type: "member", ID: m.ID}})
	})
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
