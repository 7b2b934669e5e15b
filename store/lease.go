package store

import (
	"context"
	"time"
)

// Floating seat bounds and defaults of docs/design.md §13.
const (
	DefaultLeaseSeconds = 900
	MinLeaseSeconds     = 60
	MaxLeaseSeconds     = 86_400
)

// Lease is a floating seat a device holds on a license. It is live while
// ExpiresAt is after now, decided at read time; a sweeper removes dead ones.
type Lease struct {
	ID          string
	LicenseID   string
	DeviceID    string
	Fingerprint string
	ExpiresAt   time.Time
	CreatedAt   time.Time
}

// Live reports whether the lease still holds its seat at now.
func (l *Lease) Live(now time.Time) bool { return l.ExpiresAt.After(now) }

// LeaseEnded is the audit entry of a lease that ended (event
// lease.released or lease.expired) in environment envID of application
// appID, organization orgID: it names the license, and meta says by whom
// or why.
func LeaseEnded(event, orgID, appID, envID string, l *Lease, meta map[string]any) AuditEvent {
	m := map[string]any{"lease_id": l.ID, "device_id": l.DeviceID, "expires_at": l.ExpiresAt.Format(time.RFC3339Nano)}
	for k, v := range meta {
		m[k] = v
	}
	return AuditEvent{Event: event, OrgID: orgID, AppID: appID, EnvIDs: []string{envID},
		Target: Target{Type: "license", ID: l.LicenseID}, Metadata: m}
}

// LeaseGrant is the answer of a seat checkout: the lease with the seats of
// the license in use (this one included) and the plan's cap.
type LeaseGrant struct {
	Lease
	SeatsInUse    int
	MaxConcurrent int
}

// LeaseInput names the lease a runtime session heartbeats or releases.
type LeaseInput struct {
	AccessToken string
	LeaseID     string
}

// Leases is the runtime side of floating seats (docs/design.md §13). Each call
// takes the access token of an activation session (a license and a device)
// that must pass the validation cascade, else session_invalid.
type Leases interface {
	// CheckoutLease gives the session's device a seat on its license, or
	// extends the one it holds. Returns validation_failed, stale_timestamp,
	// nonce_reused, session_invalid, seats_exhausted (RetryAfter: until the
	// first live lease ends).
	CheckoutLease(ctx context.Context, c RuntimeClient, accessToken string, rp Replay) (*LeaseGrant, error)
	// HeartbeatLease extends a live lease of the session's device by the
	// plan's lease_seconds. Returns session_invalid, lease_not_found.
	HeartbeatLease(ctx context.Context, c RuntimeClient, in LeaseInput) (*Lease, error)
	// ReleaseLease frees the seat. Returns session_invalid, lease_not_found.
	ReleaseLease(ctx context.Context, c RuntimeClient, in LeaseInput) error
}

// LicenseLeases is the management side of floating seats.
type LicenseLeases interface {
	// ListLeases lists the live leases of a license, newest first.
	// Returns not_found.
	ListLeases(ctx context.Context, s Scope, licenseID string) ([]*Lease, error)
	// ReleaseLicenseLease frees a seat for support. Returns not_found,
	// lease_not_found.
	ReleaseLicenseLease(ctx context.Context, s Scope, licenseID, leaseID string) error
}
