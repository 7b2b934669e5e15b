package bolt

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"licensectl/store"
)

var _ store.Partners = (*DB)(nil)

// partnerAttempt is a partner sign-in attempt, kept under the SHA-256 of its
// state until it is spent or expires.
type partnerAttempt struct {
	ExpiresAt time.Time `json:"exp"`
}

// partnerIdentity links a provider identity (issuer, subject) to an account.
type partnerIdentity struct {
	MemberID string    `json:"m"`
	LinkedAt time.Time `json:"at"`
	// AccountVerified says the account's address was verified before the
	// link was made. A password reset drops the links without it; a record
	// written before the field existed reads as false, so it is dropped too
	// (docs/decisions.md).
	AccountVerified bool `json:"v,omitempty"`
}

// identityKey is the key of an identity: the subject is unique only within
// its issuer.
func identityKey(issuer, subject string) []byte {
	return key([]byte(issuer), []byte{0}, []byte(subject))
}

// memberIdentityKey is the key of an identity in partner_identities_by_member.
func memberIdentityKey(memberID string, ik []byte) []byte {
	return key(idb(memberID), ik)
}

// putIdentity writes a link and its entry in the by-member index.
func (t *txn) putIdentity(ik []byte, rec *partnerIdentity) error {
	if err := t.putAt(bPartnerIdentities, ik, rec); err != nil {
		return err
	}
	return t.tx.Bucket(bPartnerIdentitiesMember).Put(memberIdentityKey(rec.MemberID, ik), []byte{})
}

// deleteIdentity removes a link and its entry in the by-member index.
func (t *txn) deleteIdentity(ik []byte, memberID string) error {
	if err := t.tx.Bucket(bPartnerIdentities).Delete(ik); err != nil {
		return err
	}
	return t.tx.Bucket(bPartnerIdentitiesMember).Delete(memberIdentityKey(memberID, ik))
}

// DropUnverifiedLinks removes the identities linked to the member while its
// address was unverified and returns how many there were.
func (t *txn) DropUnverifiedLinks(memberID string) (int, error) {
	prefix := idb(memberID)
	var drop [][]byte
	c := t.tx.Bucket(bPartnerIdentitiesMember).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		ik := k[len(prefix):]
		var rec partnerIdentity
		ok, err := t.getAt(bPartnerIdentities, ik, &rec)
		if err != nil {
			return 0, err
		}
		if !ok || rec.MemberID != memberID {
			return 0, fmt.Errorf("%s/%x: no link of member %s", bPartnerIdentitiesMember, k, memberID)
		}
		if !rec.AccountVerified {
			drop = append(drop, clone(ik))
		}
	}
	for _, ik := range drop {
		if err := t.deleteIdentity(ik, memberID); err != nil {
			return 0, err
		}
	}
	return len(drop), nil
}

// InsertPartnerAttempt implements store.Tx. Expired attempts are swept
// first; the per-address limit of the account calls keeps the bucket to
// the attempts of the last ten minutes, so the walk is short.
func (t *txn) InsertPartnerAttempt(state string, ttl time.Duration) error {
	err := t.sweep(bPartnerAttempts, func(k, v []byte) (bool, error) {
		var old partnerAttempt
		err := decode(bPartnerAttempts, k, v, &old)
		return err == nil && !t.now.Before(old.ExpiresAt), err
	})
	if err != nil {
		return err
	}
	return t.putAt(bPartnerAttempts, []byte(store.HashSecret(state)), &partnerAttempt{ExpiresAt: t.now.Add(ttl)})
}

// SpendPartnerAttempt implements store.Tx.
func (t *txn) SpendPartnerAttempt(state string) (bool, error) {
	k := []byte(store.HashSecret(state))
	var a partnerAttempt
	ok, err := t.getAt(bPartnerAttempts, k, &a)
	if err != nil || !ok || !t.now.Before(a.ExpiresAt) {
		return false, err
	}
	return true, t.tx.Bucket(bPartnerAttempts).Delete(k)
}

// PartnerSignIn implements store.Partners.
func (db *DB) PartnerSignIn(ctx context.Context, id store.PartnerIdentity, sessionTTL time.Duration) (*store.PartnerSignInResult, error) {
	email, err := id.Check()
	if err != nil {
		return nil, err
	}
	var out *store.PartnerSignInResult
	err = db.update(ctx, func(t *txn) error {
		out = &store.PartnerSignInResult{}
		ik := identityKey(id.Issuer, id.Subject)
		m, err := t.identityMember(ik)
		if err != nil {
			return err
		}
		if m == nil {
			if m, err = t.linkIdentity(ik, id, email, out); err != nil {
				return err
			}
		}
		sess, err := db.OpenDashboardSession(t, m.ID, sessionTTL)
		if err != nil {
			return err
		}
		out.Member, out.Session = m, sess
		return t.as(m).audit(auditEvent{Event: store.EventMemberLogin, OrgID: m.OrgID, Target: store.Target{Type: "member", ID: m.ID},
			Metadata: map[string]any{"method": "partner"}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// identityMember returns the account an identity is linked to, or nil. A
// link whose account was removed is dropped, so the identity can sign up
// afresh.
func (t *txn) identityMember(ik []byte) (*store.Member, error) {
	var rec partnerIdentity
	ok, err := t.getAt(bPartnerIdentities, ik, &rec)
	if err != nil || !ok {
		return nil, err
	}
	m := new(store.Member)
	found, err := t.get(bMembers, rec.MemberID, m)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, t.deleteIdentity(ik, rec.MemberID)
	}
	return m, nil
}

// linkIdentity attaches a new identity to the account of its address, or to
// a new account without organization, and records it in out. Only the
// provider's word that the address is verified lets an identity in: anyone
// can open an account at a provider with someone else's address, and an
// account made or joined that way would be waiting for its owner.
func (t *txn) linkIdentity(ik []byte, id store.PartnerIdentity, email string, out *store.PartnerSignInResult) (*store.Member, error) {
	if err := id.CheckLinkable(); err != nil {
		return nil, err
	}
	m := new(store.Member)
	if mid := t.lookup(bMembersEmail, []byte(email)); mid != "" {
		if err := t.mustGet(bMembers, mid, "member", m); err != nil {
			return nil, err
		}
	} else {
		// No password: the account signs in through the provider, or sets
		// one with forgot-password (Login treats it as having none).
		m = &store.Member{ID: store.NewID(), Email: email, EmailVerified: true}
		if err := t.insertMember(m); err != nil {
			return nil, err
		}
		out.Created = true
	}
	// Read before the link marks the account verified (the provider vouches
	// for the address): the reset mail, not this link, settles who holds it.
	rec := &partnerIdentity{MemberID: m.ID, LinkedAt: t.now, AccountVerified: m.EmailVerified}
	dropped := id.LinkTo(m)
	if dropped {
		if _, err := t.endDashSessions(m.ID); err != nil {
			return nil, err
		}
	}
	if err := t.db.MarkVerified(t, m); err != nil {
		return nil, err
	}
	if err := t.putIdentity(ik, rec); err != nil {
		return nil, err
	}
	out.Linked = true
	return m, t.as(m).audit(auditEvent{Event: store.EventMemberPartnerLinked, OrgID: m.OrgID, Target: store.Target{Type: "member", ID: m.ID},
		Metadata: map[string]any{"issuer": id.Issuer, "new_account": out.Created, "email_verified": id.EmailVerified, "account_verified": rec.AccountVerified, "password_dropped": dropped}})
}

// CompleteProfile implements store.Partners.
func (db *DB) CompleteProfile(ctx context.Context, memberID string, in store.ProfileInput) (*store.Organization, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	var o *store.Organization
	err = db.update(ctx, func(t *txn) error {
		m := new(store.Member)
		if err := t.mustGet(bMembers, memberID, "account", m); err != nil {
			return err
		}
		if err := m.CheckProfileOpen(); err != nil {
			return err
		}
		var err error
		if o, err = store.NewOrganization(t, store.NewID(), in.OrganizationName, m.EmailVerified); err != nil {
			return err
		}
		m.CompleteProfile(o.ID, in, t.now)
		if err := t.put(bMembers, m.ID, m); err != nil {
			return err
		}
		if err := t.index(bMembersOrg, idb(o.ID), m.ID); err != nil {
			return err
		}
		return t.as(m).audit(auditEvent{Event: store.EventOrganizationCreated, OrgID: o.ID, Target: store.Target{Type: "organization", ID: o.ID},
			Metadata: map[string]any{"name": o.Name, "owner_id": m.ID, "partner": true}})
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// sweep deletes the records of bucket that stale reports on.
func (t *txn) sweep(bucket []byte, stale func(k, v []byte) (bool, error)) error {
	b := t.tx.Bucket(bucket)
	var drop [][]byte
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		ok, err := stale(k, v)
		if err != nil {
			return err
		}
		if ok {
			drop = append(drop, clone(k))
		}
	}
	for _, k := range drop {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
