package postgres

import (
	"licensectl/store"
)

var _ store.Members = (*DB)(nil)

var _ = conflictOn("members_email_key", func() error { return store.Errorf(store.ECodeEmailTaken, "email is taken") })

// insertMember stores a new member; the e-mail is unique across all
// organizations (members_email_key), so of two servers adding one address
// at once the second gets email_taken, having written nothing: it waits
// for the first's commit, and then the address reads as taken in its next
// statement.
func (t *txn) insertMember(m *store.Member) error {
	m.CreatedAt, m.UpdatedAt = t.now, t.now
	n, err := t.exec(`INSERT INTO members (id, org_id, email, role, doc) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT ON CONSTRAINT members_email_key DO NOTHING`, m.ID, nullID(m.OrgID), m.Email, m.Role, js(m))
	if err == nil && n == 0 {
		err = store.ErrMemberEmailTaken()
	}
	return err
}

// saveMember writes a member read with lockMember.
func (t *txn) saveMember(m *store.Member) error {
	_, err := t.exec(`UPDATE members SET org_id = $2, role = $3, doc = $4 WHERE id = $1`, m.ID, nullID(m.OrgID), m.Role, js(m))
	return err
}

// memberByEmail loads the account of an address; nil when none.
func (t *txn) memberByEmail(email string) (*store.Member, error) {
	return doc[store.Member](t, `SELECT doc FROM members WHERE email = $1`, email)
}

// lockMember loads a member and locks its row until the transaction ends:
// every change to a member's doc reads it so, so that a password reset and
// a verification on two servers cannot overwrite each other. nil when none.
func (t *txn) lockMember(id string) (*store.Member, error) {
	return doc[store.Member](t, `SELECT doc FROM members WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
}

// Member implements store.Tx.
func (t *txn) Member(id string) (*store.Member, error) {
	return mustDoc[store.Member](t, "member", `SELECT doc FROM members WHERE id = $1`, uuidOrNil(id))
}

// orgExists refuses an unknown organization with not_found.
func (t *txn) orgExists(orgID string) error {
	n, err := t.count(`SELECT count(*) FROM orgs WHERE id = $1`, uuidOrNil(orgID))
	if err == nil && n == 0 {
		err = store.NotFound("organization")
	}
	return err
}

// Members implements store.Tx.
func (t *txn) Members(orgID string) ([]*store.Member, error) {
	return docs[store.Member](t, `SELECT doc FROM members WHERE org_id = $1 ORDER BY id`, uuidOrNil(orgID))
}
