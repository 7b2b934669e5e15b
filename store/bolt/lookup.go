package bolt

import (
	"strings"

	"licensectl/store"
)

// Exact lookups behind the list filters a support person types: a license key
// read out on the phone, a customer's e-mail, a device fingerprint from a log.
// Each resolves through a unique index, so it costs a few gets however large
// the environment; the answer keeps the list shape with zero or one item (or a
// user's few licenses).

// hasLookup reports whether f asks for licenses by key or by end-user.
func hasLookup(f store.LicenseFilter) bool {
	return f.Key != "" || f.UserID != "" || f.UserEmail != ""
}

// lookupLicenses returns, newest first, the licenses of env matching a key or
// end-user filter and then its status and plan.
func (t *txn) lookupLicenses(envID string, f store.LicenseFilter) ([]*store.License, error) {
	var ids []string
	switch {
	case f.Key != "":
		k := store.NormalizeLicenseKey(f.Key)
		if k == "" {
			return nil, nil
		}
		if id := t.licenseByKey(k); id != "" {
			ids = []string{id}
		}
	default:
		userID := f.UserID
		if f.UserEmail != "" {
			id := t.endUserByEmail(envID, f.UserEmail)
			if id == "" || (userID != "" && id != userID) {
				return nil, nil
			}
			userID = id
		}
		ids = t.all(bLicEnvUser, key(idb(envID), idb(userID)))
	}
	var out []*store.License
	for _, id := range ids {
		l := new(store.License)
		found, err := t.get(bLicenses, id, l)
		if err != nil {
			return nil, err
		}
		if !found || l.EnvID != envID ||
			(f.Status != "" && l.Status != f.Status) || (f.PlanID != "" && l.PlanID != f.PlanID) ||
			(f.UserID != "" && l.UserID != f.UserID) {
			continue
		}
		if f.UserEmail != "" && f.Key != "" && l.UserID != t.endUserByEmail(envID, f.UserEmail) {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// endUserByEmail returns the id of the end-user of env with this address, in
// any letter case, or "".
func (t *txn) endUserByEmail(envID, email string) string {
	return t.lookup(bEndUsersEmail, key(idb(envID), []byte(strings.ToLower(strings.TrimSpace(email)))))
}

// deviceByFingerprint returns the id of the device of env with this
// fingerprint, or "".
func (t *txn) deviceByFingerprint(envID, fp string) string {
	return t.lookup(bDevicesFP, key(idb(envID), []byte(strings.TrimSpace(fp))))
}
