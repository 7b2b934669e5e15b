package bolt

import (
	"bytes"
	"fmt"
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

var _ store.Partners = (*DB)(nil)

// partnerAttempt is a partner sign-in attempt, kept under the SHA-256 of its
// state until it is spent or expires.
type partnerAttempt struct {
	ExpiresAt time.Time `json:"exp"`
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
func (t *txn) putIdentity(ik []byte, rec *storedoc.PartnerIdentity) error {
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
		var rec storedoc.PartnerIdentity
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

// LockPartnerLink implements store.Tx: one writer holds the whole file.
func (t *txn) LockPartnerLink(issuer, subject string) (string, error) {
	var rec storedoc.PartnerIdentity
	ok, err := t.getAt(bPartnerIdentities, identityKey(issuer, subject), &rec)
	if err != nil || !ok {
		return "", err
	}
	return rec.MemberID, nil
}

// InsertPartnerLink implements store.Tx.
func (t *txn) InsertPartnerLink(issuer, subject, memberID string, accountVerified bool) error {
	return t.putIdentity(identityKey(issuer, subject), &storedoc.PartnerIdentity{MemberID: memberID, LinkedAt: t.now, AccountVerified: accountVerified})
}

// DeletePartnerLink implements store.Tx.
func (t *txn) DeletePartnerLink(issuer, subject string) error {
	ik := identityKey(issuer, subject)
	var rec storedoc.PartnerIdentity
	ok, err := t.getAt(bPartnerIdentities, ik, &rec)
	if err != nil || !ok {
		return err
	}
	return t.deleteIdentity(ik, rec.MemberID)
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
