package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

// licenseTx is one write transaction of a scope as store.LicenseTx: the
// changes after the sale run their rules in package store over it.
type licenseTx struct {
	t   *txn
	app *store.Application
	env *store.Environment
}

var _ store.LicenseTxRunner = (*DB)(nil)

// InLicenseTx implements store.LicenseTxRunner. A license is read FOR
// UPDATE, so two renewals of it on any servers come one after the other.
func (db *DB) InLicenseTx(ctx context.Context, s store.Scope, fn func(store.LicenseTx) error) error {
	return db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		return fn(&licenseTx{t: t, app: a, env: env})
	})
}

func (x *licenseTx) Now() time.Time { return x.t.now }

func (x *licenseTx) LockLicense(id string) (*store.License, error) {
	return x.t.lockLicense(x.env.ID, id)
}

func (x *licenseTx) Plan(id string) (*store.Plan, error) { return x.t.plan(x.app.ID, id) }

func (x *licenseTx) EndUser(id string) (*store.EndUser, error) { return x.t.endUser(x.env.ID, id) }

func (x *licenseTx) SaveLicense(prev, next *store.License) error {
	return x.t.saveLicense(x.app.OrgID, next, false)
}

func (x *licenseTx) EndLicenseUse(licenseID, event string) (int, error) {
	n, err := x.t.revokeSessions("license_id", licenseID, RevokedStatus)
	if err != nil {
		return 0, err
	}
	_, err = x.t.endLeases("license_id", licenseID, event)
	return n, err
}

func (x *licenseTx) Items(ls []*store.License) ([]*store.LicenseItem, error) {
	return x.t.licenseItems(ls)
}

func (x *licenseTx) Audit(event, licenseID string, metadata map[string]any) error {
	return x.t.audit(auditEvent{Event: event, OrgID: x.app.OrgID, AppID: x.app.ID, EnvIDs: []string{x.env.ID},
		Target: store.Target{Type: "license", ID: licenseID}, Metadata: metadata})
}

// RenewLicense implements store.Licenses.
func (db *DB) RenewLicense(ctx context.Context, s store.Scope, id string, in store.RenewInput) (*store.LicenseDetail, error) {
	if _, err := store.RenewLicense(ctx, db, s, id, in); err != nil {
		return nil, err
	}
	return db.FindLicense(ctx, s, id)
}

// UpdateLicense implements store.Licenses.
func (db *DB) UpdateLicense(ctx context.Context, s store.Scope, id string, u store.LicenseUpdate) (*store.LicenseDetail, error) {
	if _, err := store.UpdateLicense(ctx, db, s, id, u); err != nil {
		return nil, err
	}
	return db.FindLicense(ctx, s, id)
}

// RenewLicenses implements store.Licenses.
func (db *DB) RenewLicenses(ctx context.Context, s store.Scope, in store.BulkRenewInput) ([]*store.LicenseItem, error) {
	return store.RenewLicenses(ctx, db, s, in)
}
