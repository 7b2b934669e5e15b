package bolt

import (
	"context"
	"net/mail"
	"strings"

	"licensectl/store"
)

// NormalizeEmail trims and lower-cases an address and checks its form.
func NormalizeEmail(field, email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	if e == "" {
		return "", store.Invalid(field, "%s is required", field)
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || len(e) > 254 || !strings.Contains(e[strings.LastIndexByte(e, '@')+1:], ".") {
		return "", store.Invalid(field, "%s is not a valid e-mail address", field)
	}
	return e, nil
}

// newMember validates the input and hashes the password outside any
// transaction; argon2id is slow by design and must not hold the write lock.
func (db *DB) newMember(ctx context.Context, in store.AddMemberInput) (*store.Member, error) {
	email, err := NormalizeEmail("email", in.Email)
	if err != nil {
		return nil, err
	}
	if !store.ValidRole(in.Role) {
		return nil, store.Invalid("role", "role must be owner, admin, developer or viewer")
	}
	if in.Password == "" {
		return nil, store.Invalid("password", "password is required")
	}
	if db.policy != nil {
		if err := db.policy(in.Password, email); err != nil {
			return nil, err
		}
	}
	if db.hasher == nil {
		return nil, store.Errorf(store.ECodeInternal, "no password hasher configured")
	}
	hash, err := db.hasher.Hash(ctx, in.Password)
	if err != nil {
		return nil, err
	}
	return &store.Member{ID: store.NewID(), OrgID: in.OrgID, Email: email, PasswordHash: hash, FirstName: strings.TrimSpace(in.FirstName),
		LastName: strings.TrimSpace(in.LastName), Role: in.Role}, nil
}

// insertMember stores a new member; the e-mail is unique across all organizations.
func (t *txn) insertMember(m *store.Member) error {
	if t.lookup(bMembersEmail, []byte(m.Email)) != "" {
		return store.Errorf(store.ECodeEmailTaken, "an account with this e-mail already exists")
	}
	m.CreatedAt, m.UpdatedAt = t.now, t.now
	if err := t.put(bMembers, m.ID, m); err != nil {
		return err
	}
	if err := t.setUnique(bMembersEmail, []byte(m.Email), m.ID); err != nil {
		return err
	}
	if m.OrgID == "" {
		return nil
	}
	return t.index(bMembersOrg, idb(m.OrgID), m.ID)
}
