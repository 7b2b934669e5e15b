package store

import (
	"context"
	"time"
)

// LicenseTx is what the license changes after the sale need of one storage
// transaction in one scope: the reads, the locks an invariant depends on,
// the write, the end of a license's use, and the audit entry with its
// webhook event. Each store implements it over its own transaction; the
// rules and their order are here, once.
type LicenseTx interface {
	// Now is the transaction's one time.
	Now() time.Time
	// LockLicense reads a license of the scope's environment so that no
	// other change to it commits in between. Returns not_found.
	LockLicense(id string) (*License, error)
	// Plan reads a plan of the scope's application. Returns not_found.
	Plan(id string) (*Plan, error)
	// EndUser reads an end-user of the scope's environment. Returns not_found.
	EndUser(id string) (*EndUser, error)
	// SaveLicense writes next over prev, with its indexes and counters.
	SaveLicense(prev, next *License) error
	// EndLicenseUse revokes the license's sessions and ends its leases, for
	// a status that stops the license (event names it); it returns how many
	// sessions it revoked.
	EndLicenseUse(licenseID, event string) (int, error)
	// Items resolves the plans and end-users of licenses for their list
	// items, in order.
	Items(ls []*License) ([]*LicenseItem, error)
	// Audit records event about the license with its metadata, and queues
	// its webhook deliveries.
	Audit(event, licenseID string, metadata map[string]any) error
}

// LicenseTxRunner runs fn in one write transaction of scope s, committed
// when fn returns nil and rolled back otherwise. Returns not_found for an
// unknown scope.
type LicenseTxRunner interface {
	InLicenseTx(ctx context.Context, s Scope, fn func(LicenseTx) error) error
}

// RenewLicense renews one license (License.Renew) and audits
// license.renewed. Returns validation_failed, invalid_transition,
// not_found.
func RenewLicense(ctx context.Context, r LicenseTxRunner, s Scope, id string, in RenewInput) (*License, error) {
	if err := CheckID("license_id", id); err != nil {
		return nil, NotFound("license")
	}
	if err := in.Check(); err != nil {
		return nil, err
	}
	var out *License
	err := r.InLicenseTx(ctx, s, func(tx LicenseTx) error {
		l, err := renewOne(tx, id, in)
		out = l
		return err
	})
	return out, err
}

// RenewLicenses renews every license of in by in.Days in one transaction:
// one that cannot be renewed (unknown, perpetual, revoked, banned) leaves
// them all as they were. One license.renewed per license. Returns
// validation_failed, invalid_transition, not_found, each naming the
// license at fault.
func RenewLicenses(ctx context.Context, r LicenseTxRunner, s Scope, in BulkRenewInput) ([]*LicenseItem, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	var out []*LicenseItem
	err := r.InLicenseTx(ctx, s, func(tx LicenseTx) error {
		renewed := make([]*License, 0, len(in.LicenseIDs))
		days := in.Days
		for _, id := range in.LicenseIDs {
			l, err := renewOne(tx, id, RenewInput{Days: &days})
			if err != nil {
				if e := AsError(err); e != nil && e.Code != ECodeInternal {
					named := *e
					named.Message = "license " + id + ": " + e.Message
					return &named
				}
				return err
			}
			renewed = append(renewed, l)
		}
		var err error
		out, err = tx.Items(renewed)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func renewOne(tx LicenseTx, id string, in RenewInput) (*License, error) {
	prev, err := tx.LockLicense(id)
	if err != nil {
		return nil, err
	}
	var plan *Plan
	if in.Days == nil && in.MaintenanceDays == nil {
		if plan, err = tx.Plan(prev.PlanID); err != nil {
			return nil, err
		}
	}
	next := *prev
	ev, err := next.Renew(in, plan, tx.Now())
	if err != nil {
		return nil, err
	}
	if err := tx.SaveLicense(prev, &next); err != nil {
		return nil, err
	}
	return &next, tx.Audit(ev.Event, next.ID, ev.Metadata)
}

// UpdateLicense applies a PATCH of a license: its dates, plan, end-user and
// status together in one transaction or not at all, each change with its
// event (license.updated, license.plan_changed, license.transferred, the
// status's). Returns validation_failed, invalid_transition,
// too_many_devices, not_found (license, plan, end-user).
func UpdateLicense(ctx context.Context, r LicenseTxRunner, s Scope, id string, u LicenseUpdate) (*License, error) {
	if err := CheckID("license_id", id); err != nil {
		return nil, NotFound("license")
	}
	if err := u.Check(); err != nil {
		return nil, err
	}
	var out *License
	err := r.InLicenseTx(ctx, s, func(tx LicenseTx) error {
		prev, err := tx.LockLicense(id)
		if err != nil {
			return err
		}
		now := tx.Now()
		next := *prev
		var events []*LicenseEvent
		if u.PlanID != nil && *u.PlanID != prev.PlanID {
			to, err := tx.Plan(*u.PlanID)
			if ErrorCode(err) == ECodeNotFound {
				return Invalid("plan_id", "plan_id names no plan of this application")
			} else if err != nil {
				return err
			}
			from, err := tx.Plan(prev.PlanID)
			if err != nil && ErrorCode(err) != ECodeNotFound {
				return err
			}
			ev, err := next.ChangePlan(from, to, now)
			if err != nil {
				return err
			}
			events = append(events, ev)
		}
		if u.UserID != nil && *u.UserID != prev.UserID {
			var from, to *EndUser
			if *u.UserID != "" {
				if to, err = tx.EndUser(*u.UserID); err != nil {
					return err
				}
			}
			if prev.UserID != "" {
				if from, err = tx.EndUser(prev.UserID); err != nil && ErrorCode(err) != ECodeNotFound {
					return err
				}
			}
			ev, err := next.Transfer(from, to, now)
			if err != nil {
				return err
			}
			events = append(events, ev)
		}
		ev, err := next.SetDates(u, now)
		if err != nil {
			return err
		}
		if ev != nil {
			events = append(events, ev)
		}
		var status StatusChange
		if u.Status != nil {
			if status, err = next.SetStatus(*u.Status, now); err != nil {
				return err
			}
		}
		out = &next
		if len(events) == 0 && status.Event == "" {
			out = prev
			return nil
		}
		if err := tx.SaveLicense(prev, &next); err != nil {
			return err
		}
		for _, ev := range events {
			if err := tx.Audit(ev.Event, next.ID, ev.Metadata); err != nil {
				return err
			}
		}
		if status.Event == "" {
			return nil
		}
		revoked := 0
		if status.Revoke {
			if revoked, err = tx.EndLicenseUse(next.ID, status.Event); err != nil {
				return err
			}
		}
		return tx.Audit(status.Event, next.ID, map[string]any{"from": status.From, "to": status.To, "sessions_revoked": revoked})
	})
	return out, err
}
