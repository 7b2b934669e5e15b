package store

import (
	"context"
	"slices"
	"time"
)

// License statuses of docs/design.md §6. Expired is never stored as the result of
// a PATCH: it is derived when ExpiresAt has passed.
const (
	LicenseInactive  = "inactive"
	LicenseActive    = "active"
	LicenseExpired   = "expired"
	LicenseSuspended = "suspended"
	LicenseRevoked   = "revoked"
	LicenseBanned    = "banned"
)

// License is a key generated for a plan and activated on devices.
type License struct {
	ID             string
	AppID          string
	EnvID          string
	Key            string
	PlanID         string
	Status         string // stored status; use EffectiveStatus to read
	UserID         string // "" when unassigned
	EntitlementIDs []string
	// DevicesCount is how many devices are bound. The bound devices are an
	// index of the store beside the license, never a list inside it, so that
	// a license with 100,000 devices reads and writes like one with ten;
	// page them with ListDevices (StatusFilter.LicenseID).
	DevicesCount int
	ActivatedAt  *time.Time
	ExpiresAt    *time.Time
	// MaintenanceExpiresAt ends the license's update eligibility; nil is
	// unlimited. It never stops the license from validating.
	MaintenanceExpiresAt  *time.Time
	DeviceResetsRemaining int
	// ResetTimes are the runtime device resets consumed, oldest first, kept
	// while a reset window (at most MaxResetWindowDays) can still count them.
	ResetTimes []time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// EffectiveStatus is the status a caller sees at now: an inactive or active
// license whose expiry has passed is expired.
func (l *License) EffectiveStatus(now time.Time) string {
	if (l.Status == LicenseActive || l.Status == LicenseInactive) && l.ExpiresAt != nil && !now.Before(*l.ExpiresAt) {
		return LicenseExpired
	}
	return l.Status
}

// LicenseStatusesInUse are the stored statuses of the licenses that keep
// their plan from being deleted (plan_in_use).
var LicenseStatusesInUse = []string{LicenseInactive, LicenseActive, LicenseSuspended}

// LicenseStatusesUncounted are the stored statuses of the licenses that do
// not use one of their organization's max_licenses.
var LicenseStatusesUncounted = []string{LicenseRevoked, LicenseBanned}

// CountsAgainstTier reports whether a license in stored status uses one of
// its organization's max_licenses: every license neither revoked nor banned.
func CountsAgainstTier(status string) bool {
	return !slices.Contains(LicenseStatusesUncounted, status)
}

// Lapsed reports a license whose expiry has passed at now while its stored
// status still reads inactive or active: the expiry pass stores expired on
// it, so that status filters and counts agree with the status reads derive.
func (l *License) Lapsed(now time.Time) bool {
	return l.Status != LicenseExpired && l.EffectiveStatus(now) == LicenseExpired
}

// LicenseItem is a license as listed, with its plan and user resolved.
type LicenseItem struct {
	License
	PlanName  string
	UserEmail string
}

// LicenseDevice is a device bound to a license, as shown in its detail.
type LicenseDevice struct {
	ID          string
	Fingerprint string
	Name        string
	Platform    string
	Status      string
	BoundAt     time.Time
	LastSeenAt  *time.Time
}

// LicenseDetailDevices is how many bound devices a license detail carries:
// the first page of ListDevices by license at the default page size.
const LicenseDetailDevices = DefaultPerPage

// LicenseDetail is the full read of one license.
type LicenseDetail struct {
	LicenseItem
	// Devices is the first LicenseDetailDevices bound devices, newest first;
	// DevicesCount says how many there are in all.
	Devices      []LicenseDevice
	Entitlements []EntitlementRef
}

// GenerateLicensesInput generates Quantity licenses for a plan.
type GenerateLicensesInput struct {
	PlanID         string
	Quantity       int
	ExpiresAt      *time.Time
	EntitlementIDs []string
}

// MaxGenerate is the most licenses one generation call makes.
const MaxGenerate = 1000

// LicenseFilter selects a page of licenses. Key looks one license up (typed
// as a person reads it out: any case, dashes optional, O for 0, I or L for 1);
// UserID and UserEmail select the licenses of one end-user. The other fields
// narrow those further.
type LicenseFilter struct {
	Status    string
	PlanID    string
	Key       string
	UserID    string
	UserEmail string
	PageRequest
}

// IsLookup reports whether f asks for licenses by key or by end-user: an
// exact lookup through a unique index, whose few licenses are paged in
// memory (PageOf) rather than walked.
func (f LicenseFilter) IsLookup() bool { return f.Key != "" || f.UserID != "" || f.UserEmail != "" }

// Licenses stores licenses.
type Licenses interface {
	// GenerateLicenses returns validation_failed (quantity, unknown plan or
	// entitlement), not_found, plan_limit_reached.
	GenerateLicenses(ctx context.Context, s Scope, in GenerateLicensesInput) ([]*LicenseItem, error)
	// ListLicenses returns a page, newest first.
	ListLicenses(ctx context.Context, s Scope, f LicenseFilter) (*Page[*LicenseItem], error)
	// FindLicense returns not_found.
	FindLicense(ctx context.Context, s Scope, id string) (*LicenseDetail, error)
	// SetLicenseStatus moves the license to active, suspended, revoked or
	// banned; the last three revoke its sessions. Returns validation_failed,
	// invalid_transition, not_found.
	SetLicenseStatus(ctx context.Context, s Scope, id, status string) (*License, error)
	// RenewLicense extends the license's expiry (and maintenance) as
	// docs/design.md §16 says. Returns validation_failed,
	// invalid_transition, not_found.
	RenewLicense(ctx context.Context, s Scope, id string, in RenewInput) (*LicenseItem, error)
	// RenewLicenses renews every license named by in.Days, all or none, and
	// returns them in order. Returns validation_failed,
	// invalid_transition, not_found.
	RenewLicenses(ctx context.Context, s Scope, in BulkRenewInput) ([]*LicenseItem, error)
	// UpdateLicense changes the license's status, dates, plan and end-user
	// together. Returns validation_failed, invalid_transition,
	// too_many_devices, not_found.
	UpdateLicense(ctx context.Context, s Scope, id string, u LicenseUpdate) (*LicenseItem, error)
	// ResetLicenseDevice unbinds a device without consuming the reset quota.
	// Returns not_found (license, or device not bound to it).
	ResetLicenseDevice(ctx context.Context, s Scope, licenseID, deviceID string) error
	// CountLicenseSessions is how many of the license's sessions are live
	// now: not revoked and inside their idle and absolute lifetimes (what a
	// suspension would revoke). Returns not_found.
	CountLicenseSessions(ctx context.Context, s Scope, licenseID string) (int, error)
}

// ResetsRemaining is how many runtime device resets the license has left
// under its plan at now. A plan without a reset window counts the license's
// whole life (DeviceResetsRemaining); one with a window counts the resets
// inside the last DeviceResetWindowDays days against DeviceResetLimit. When
// none are left, retry is how long until one leaves the window (0 for a
// lifetime limit, which never frees a reset).
func (l *License) ResetsRemaining(p *Plan, now time.Time) (remaining int, retry time.Duration) {
	if p == nil || p.DeviceResetWindowDays == 0 {
		return max(0, l.DeviceResetsRemaining), 0
	}
	window := time.Duration(p.DeviceResetWindowDays) * 24 * time.Hour
	in := l.ResetTimes[:0:0]
	for _, t := range l.ResetTimes {
		if t.Add(window).After(now) {
			in = append(in, t)
		}
	}
	remaining = p.DeviceResetLimit - len(in)
	if remaining > 0 || p.DeviceResetLimit == 0 {
		return max(0, remaining), 0
	}
	// One reset frees up when the count in the window drops below the
	// limit: when the (len-limit+1)th oldest of them leaves it. With the
	// count at the limit, that is the oldest.
	return 0, in[len(in)-p.DeviceResetLimit].Add(window).Sub(now)
}

// RecordReset notes a runtime device reset at now, dropping the resets no
// window can count any more.
func (l *License) RecordReset(now time.Time) {
	horizon := now.Add(-time.Duration(MaxResetWindowDays) * 24 * time.Hour)
	kept := make([]time.Time, 0, len(l.ResetTimes)+1)
	for _, t := range l.ResetTimes {
		if t.After(horizon) {
			kept = append(kept, t)
		}
	}
	if len(kept) >= MaxDeviceResetLimit {
		kept = kept[len(kept)-MaxDeviceResetLimit+1:]
	}
	l.ResetTimes = append(kept, now)
	l.DeviceResetsRemaining--
}
