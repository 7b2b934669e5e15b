package store

import (
	"fmt"
	"time"
)

// The licence after the sale (docs/design.md §16): renewals, plan changes,
// transfers and maintenance. These are the rules; LicenseChanges runs them
// in one transaction of whichever store.

// Bounds of renewals.
const (
	MinRenewDays = MinDurationDays
	MaxRenewDays = MaxDurationDays
	MaxBulkRenew = 1000
)

// latestExpiry is the last instant an expiry may take: RFC 3339, the
// format every answer writes times in, has four-digit years only.
var latestExpiry = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// RenewInput renews one license: Days moves expires_at, MaintenanceDays
// moves maintenance_expires_at. Days nil takes the plan's duration_days
// when MaintenanceDays is nil too.
type RenewInput struct {
	Days            *int
	MaintenanceDays *int
}

// BulkRenewInput renews every license of LicenseIDs by Days, all or none.
type BulkRenewInput struct {
	LicenseIDs []string
	Days       int
}

// LicenseUpdate is a PATCH of a license: the fields present change
// together or not at all. ExpiresAt and MaintenanceExpiresAt present with
// a nil inside clear the date; UserID present and "" unassigns.
type LicenseUpdate struct {
	Status               *string
	ExpiresAt            **time.Time
	MaintenanceExpiresAt **time.Time
	PlanID               *string
	UserID               *string
}

// Empty reports whether u names no field: a PATCH that changes nothing.
func (u LicenseUpdate) Empty() bool {
	return u.Status == nil && u.ExpiresAt == nil && u.MaintenanceExpiresAt == nil && u.PlanID == nil && u.UserID == nil
}

// LicenseEvent is one event a change to a license emits, with the
// metadata its audit entry and webhook payload carry.
type LicenseEvent struct {
	Event    string
	Metadata map[string]any
}

func checkDays(field string, v *int) error {
	if v != nil && (*v < MinRenewDays || *v > MaxRenewDays) {
		return Invalid(field, "%s must be between %d and %d", field, MinRenewDays, MaxRenewDays)
	}
	return nil
}

// Check validates in without a record. Returns validation_failed.
func (in RenewInput) Check() error {
	if err := checkDays("days", in.Days); err != nil {
		return err
	}
	return checkDays("maintenance_days", in.MaintenanceDays)
}

// Check validates in without a record: 1 to MaxBulkRenew distinct license
// ids and days in range. Returns validation_failed.
func (in BulkRenewInput) Check() error {
	if len(in.LicenseIDs) == 0 || len(in.LicenseIDs) > MaxBulkRenew {
		return Invalid("license_ids", "license_ids must hold between 1 and %d ids", MaxBulkRenew)
	}
	seen := make(map[string]bool, len(in.LicenseIDs))
	for _, id := range in.LicenseIDs {
		if err := CheckID("license_ids", id); err != nil {
			return err
		}
		if seen[id] {
			return Invalid("license_ids", "license_ids names %s twice", id)
		}
		seen[id] = true
	}
	return checkDays("days", &in.Days)
}

// Check validates u without a record. Returns validation_failed.
func (u LicenseUpdate) Check() error {
	if u.Empty() {
		return Invalid("status", "name at least one of status, expires_at, maintenance_expires_at, plan_id, user_id")
	}
	if u.Status != nil {
		if err := LicenseStatus.Check(*u.Status); err != nil {
			return err
		}
	}
	for field, v := range map[string]**time.Time{"expires_at": u.ExpiresAt, "maintenance_expires_at": u.MaintenanceExpiresAt} {
		if v != nil && *v != nil && (*v).After(latestExpiry) {
			return Invalid(field, "%s must be at most %s", field, latestExpiry.Format(time.RFC3339))
		}
	}
	if u.PlanID != nil {
		if err := CheckID("plan_id", *u.PlanID); err != nil {
			return err
		}
	}
	if u.UserID != nil {
		if err := CheckOptionalID("user_id", *u.UserID); err != nil {
			return err
		}
	}
	return nil
}

// checkChangeable refuses every change after the sale to a revoked or
// banned license: those statuses are final.
func (l *License) checkChangeable(what string) error {
	if l.Status == LicenseRevoked || l.Status == LicenseBanned {
		return Errorf(ECodeTransition, "a %s license cannot be %s", l.Status, what)
	}
	return nil
}

// extend is a date d days after from or, when from has passed, after now.
func extend(from time.Time, days int, now time.Time, field string) (time.Time, error) {
	base := from
	if now.After(base) {
		base = now
	}
	next := base.Add(time.Duration(days) * 24 * time.Hour)
	if next.After(latestExpiry) {
		return time.Time{}, Invalid(field, "renewing by %d days would move %s past %s", days, field, latestExpiry.Format(time.RFC3339))
	}
	return next, nil
}

// reopen gives an expired license whose expiry moved ahead its usable
// status back: active when it was ever activated, inactive otherwise.
func (l *License) reopen(now time.Time) {
	if l.Status == LicenseExpired && l.ExpiresAt != nil && l.ExpiresAt.After(now) {
		l.Status = LicenseInactive
		if l.ActivatedAt != nil {
			l.Status = LicenseActive
		}
	}
}

// timeValue is a date as event metadata holds it: RFC 3339, or nil.
func timeValue(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// Renew extends l at now by in under plan, its plan: expires_at moves to
// max(now, expires_at) + days, maintenance_expires_at likewise by
// maintenance_days. Returns validation_failed (days missing with a plan
// without duration_days, out of range), invalid_transition (revoked or
// banned; a date to extend that is null: perpetual, or unlimited updates).
func (l *License) Renew(in RenewInput, plan *Plan, now time.Time) (LicenseEvent, error) {
	if err := in.Check(); err != nil {
		return LicenseEvent{}, err
	}
	days := in.Days
	if days == nil && in.MaintenanceDays == nil {
		if plan == nil || plan.DurationDays == nil {
			return LicenseEvent{}, Invalid("days", "days is required: the license's plan has no duration_days to renew by")
		}
		days = plan.DurationDays
	}
	if err := l.checkChangeable("renewed"); err != nil {
		return LicenseEvent{}, err
	}
	if days != nil && l.ExpiresAt == nil {
		return LicenseEvent{}, Errorf(ECodeTransition, "the license never expires (expires_at is null), so it cannot be renewed by days; give it an expiry with PATCH expires_at (`licensectl license set-expiry`)")
	}
	if in.MaintenanceDays != nil && l.MaintenanceExpiresAt == nil {
		return LicenseEvent{}, Errorf(ECodeTransition, "the license's updates never end (maintenance_expires_at is null), so maintenance cannot be renewed by days; set maintenance_expires_at with PATCH")
	}
	ev := LicenseEvent{Event: EventLicenseRenewed, Metadata: map[string]any{}}
	next := *l
	if days != nil {
		exp, err := extend(*l.ExpiresAt, *days, now, "expires_at")
		if err != nil {
			return LicenseEvent{}, err
		}
		next.ExpiresAt = &exp
		ev.Metadata["previous_expires_at"], ev.Metadata["expires_at"] = timeValue(l.ExpiresAt), timeValue(&exp)
	}
	if in.MaintenanceDays != nil {
		mnt, err := extend(*l.MaintenanceExpiresAt, *in.MaintenanceDays, now, "maintenance_expires_at")
		if err != nil {
			return LicenseEvent{}, err
		}
		next.MaintenanceExpiresAt = &mnt
		ev.Metadata["previous_maintenance_expires_at"], ev.Metadata["maintenance_expires_at"] = timeValue(l.MaintenanceExpiresAt), timeValue(&mnt)
	}
	next.reopen(now)
	next.UpdatedAt = now
	*l = next
	return ev, nil
}

// SetDates applies the expires_at and maintenance_expires_at of u to l at
// now: an expiry in the past makes the license expired at once (derived),
// one ahead reopens an expired license. Nothing changes when u sets
// neither or sets them to what l has. Returns invalid_transition (revoked
// or banned).
func (l *License) SetDates(u LicenseUpdate, now time.Time) (*LicenseEvent, error) {
	if u.ExpiresAt == nil && u.MaintenanceExpiresAt == nil {
		return nil, nil
	}
	if err := l.checkChangeable("changed"); err != nil {
		return nil, err
	}
	next := *l
	changed := map[string]any{}
	if u.ExpiresAt != nil && !sameTime(l.ExpiresAt, *u.ExpiresAt) {
		next.ExpiresAt = copyTime(*u.ExpiresAt)
		changed["previous_expires_at"], changed["expires_at"] = timeValue(l.ExpiresAt), timeValue(next.ExpiresAt)
	}
	if u.MaintenanceExpiresAt != nil && !sameTime(l.MaintenanceExpiresAt, *u.MaintenanceExpiresAt) {
		next.MaintenanceExpiresAt = copyTime(*u.MaintenanceExpiresAt)
		changed["previous_maintenance_expires_at"], changed["maintenance_expires_at"] = timeValue(l.MaintenanceExpiresAt), timeValue(next.MaintenanceExpiresAt)
	}
	if len(changed) == 0 {
		return nil, nil
	}
	next.reopen(now)
	next.UpdatedAt = now
	*l = next
	return &LicenseEvent{Event: EventLicenseUpdated, Metadata: changed}, nil
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := *t
	return &v
}

// ChangePlan moves l from plan from to plan to at now: entitlements follow
// the new plan (they are resolved on reads), device_resets_remaining is
// the new plan's limit minus the resets already spent (never below 0), and
// expires_at is kept. Returns invalid_transition (revoked or banned),
// too_many_devices when more devices are bound than to allows; l is
// unchanged on error. from may be nil (a plan gone).
func (l *License) ChangePlan(from, to *Plan, now time.Time) (*LicenseEvent, error) {
	if l.PlanID == to.ID {
		return nil, nil
	}
	if err := l.checkChangeable("moved to another plan"); err != nil {
		return nil, err
	}
	if l.DevicesCount > to.MaxDevices {
		return nil, &Error{Code: ECodeTooManyDevices, Field: "plan_id",
			Message: fmt.Sprintf("the license has %d devices bound and plan %q allows %d: reset %d of them first (`licensectl license reset-device`)",
				l.DevicesCount, to.Name, to.MaxDevices, l.DevicesCount-to.MaxDevices)}
	}
	spent := 0
	if from != nil && from.DeviceResetWindowDays == 0 {
		spent = max(0, from.DeviceResetLimit-l.DeviceResetsRemaining)
	} else {
		window := time.Duration(to.DeviceResetWindowDays) * 24 * time.Hour
		if to.DeviceResetWindowDays == 0 {
			window = time.Duration(MaxResetWindowDays) * 24 * time.Hour
		}
		for _, t := range l.ResetTimes {
			if t.Add(window).After(now) {
				spent++
			}
		}
	}
	prev := PlanRefSnapshot{ID: l.PlanID}
	if from != nil {
		prev.Name = from.Name
	}
	next := *l
	next.PlanID = to.ID
	next.DeviceResetsRemaining = max(0, to.DeviceResetLimit-spent)
	next.UpdatedAt = now
	*l = next
	return &LicenseEvent{Event: EventLicensePlanChanged, Metadata: map[string]any{
		"previous_plan": map[string]any{"id": prev.ID, "name": prev.Name},
		"plan":          map[string]any{"id": to.ID, "name": to.Name},
	}}, nil
}

// Transfer hands l from its end-user (prev, nil when unassigned) to to
// (nil to unassign) at now. The previous owner's login sessions lose the
// license's entitlements at once, as they are evaluated live; its
// device-bound sessions stay. Returns invalid_transition (revoked or
// banned).
func (l *License) Transfer(prev, to *EndUser, now time.Time) (*LicenseEvent, error) {
	toID := ""
	if to != nil {
		toID = to.ID
	}
	if l.UserID == toID {
		return nil, nil
	}
	if err := l.checkChangeable("transferred"); err != nil {
		return nil, err
	}
	ref := func(u *EndUser, id string) any {
		if id == "" {
			return nil
		}
		m := map[string]any{"id": id, "email": ""}
		if u != nil {
			m["email"] = u.Email
		}
		return m
	}
	ev := &LicenseEvent{Event: EventLicenseTransferred, Metadata: map[string]any{
		"previous_user": ref(prev, l.UserID), "user": ref(to, toID),
	}}
	l.UserID, l.UpdatedAt = toID, now
	return ev, nil
}
