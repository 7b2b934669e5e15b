package bolt

import (
	"context"

	"licensectl/store"
)

// PrepareActivation implements store.ActivationPreparer: it reads what the
// activation is expected to find and signs its access token outside the
// write transaction, whose one goroutine then only compares. Any surprise
// (a re-bind, a device created meanwhile) just leaves the token unsigned;
// the transaction decides everything.
func (s runtimeStorage) PrepareActivation(ctx context.Context, c store.RuntimeClient, in store.ActivateInput, seed *store.SessionSeed) {
	r := s.r
	var preApp *store.RuntimeApp // set, with preSub, when the token can be presigned
	var preSub store.SessionSubject
	_ = r.db.view(ctx, func(t *txn) error {
		ra, err := r.activeApp(t, c)
		if err != nil || in.LicenseKey == "" {
			return nil
		}
		var userID string
		var roles []string
		if in.UserToken != "" {
			s, err := r.findByAccess(t, in.UserToken, store.HashSecret(in.UserToken))
			if err != nil {
				return nil
			}
			reason, v, err := r.cascade(t, ra, s, true)
			if err != nil || reason != "" || v.user == nil {
				return nil
			}
			userID, roles = v.user.ID, v.user.Roles
		}
		l, err := cachedGet[store.License](r.cache, t, tagLicense, bLicenses, idb(t.licenseByKey(in.LicenseKey)))
		if err != nil || l == nil || l.EnvID != ra.Env.ID {
			return nil
		}
		devID := t.lookup(bDevicesFP, key(idb(ra.Env.ID), []byte(in.Fingerprint)))
		if devID == "" {
			devID = seed.DeviceID
		}
		ents, err := r.licenseEntitlements(t, l, nil)
		if err != nil {
			return nil
		}
		preApp = ra
		preSub = store.SessionSubject{LicenseID: l.ID, UserID: userID, DeviceID: devID, Entitlements: store.KeySet(ents), Roles: roles,
			MaintenanceExpiresAt: l.MaintenanceExpiresAt}
		return nil
	})
	if preApp != nil {
		ts := tokenSeedOf(*seed)
		r.presign(preApp, preSub, &ts)
		seed.Prepared = ts.pre
	}
}
