package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// The copy from one store into another (docs/design.md §12, "Moving from the
// file"): the source streams every record it holds as a CopyRecord, and the
// target writes them as they are, ids, hashes and signing keys included. The
// records are the domain types where one holds all that is stored, and the
// plain structs below for what only a store keeps (hashes of tokens,
// endpoints' secrets, payloads). Nothing here says how either store lays
// them out: indexes and counts are the target's to rebuild.

// CopyKind names a kind of record of a copy.
type CopyKind string

// The kinds of a copy, and the Go type of each one's CopyRecord.Value.
const (
	CopyMeta                CopyKind = "meta"                 // *CopyMetaValue
	CopyOrganizations       CopyKind = "organizations"        // *Organization
	CopyMembers             CopyKind = "members"              // *Member
	CopyDashboardSessions   CopyKind = "dashboard_sessions"   // *DashboardSession
	CopyMailTokens          CopyKind = "mail_tokens"          // *CopyMailToken
	CopyUsedChallenges      CopyKind = "used_challenges"      // *CopyExpiring
	CopyOnboarding          CopyKind = "onboarding"           // *CopyOnboardingState
	CopyPartnerAttempts     CopyKind = "partner_attempts"     // *CopyExpiring
	CopyPartnerIdentities   CopyKind = "partner_identities"   // *CopyPartnerIdentity
	CopySubscriptions       CopyKind = "subscriptions"        // *CopySubscription
	CopyBillingTransactions CopyKind = "billing_transactions" // *CopyBillingTransaction
	CopyApplications        CopyKind = "applications"         // *Application
	CopyAPIKeys             CopyKind = "api_keys"             // *APIKey
	CopyAppSecrets          CopyKind = "app_secrets"          // *AppSecret
	CopyEntitlements        CopyKind = "entitlements"         // *Entitlement
	CopyPlans               CopyKind = "plans"                // *Plan
	CopyLicenses            CopyKind = "licenses"             // *CopyLicense
	CopyEndUsers            CopyKind = "end_users"            // *EndUser
	CopyDevices             CopyKind = "devices"              // *Device
	CopyLicenseDevices      CopyKind = "license_devices"      // *CopyLicenseDevice
	CopySessions            CopyKind = "runtime_sessions"     // *CopySession
	CopyLeases              CopyKind = "leases"               // *CopyLease
	CopyNonces              CopyKind = "nonces"               // *CopyNonce
	CopyUsage               CopyKind = "runtime_usage"        // *CopyUsageMonth
	CopyAudit               CopyKind = "audit_entries"        // *CopyAuditEntry
	CopyWebhooks            CopyKind = "webhooks"             // *CopyWebhook
	CopyOutboxEvents        CopyKind = "outbox_events"        // *CopyOutboxEvent
	CopyOutboxBodies        CopyKind = "outbox_bodies"        // *CopyOutboxBody
	CopyDeliveries          CopyKind = "webhook_deliveries"   // *CopyDelivery
)

// CopyKinds lists every kind, in the order a source streams them and a copy
// prints its counts.
func CopyKinds() []CopyKind {
	return []CopyKind{
		CopyMeta, CopyOrganizations, CopyMembers, CopyDashboardSessions, CopyMailTokens, CopyUsedChallenges,
		CopyOnboarding, CopyPartnerAttempts, CopyPartnerIdentities, CopySubscriptions, CopyBillingTransactions,
		CopyApplications, CopyAPIKeys, CopyAppSecrets, CopyEntitlements, CopyPlans, CopyLicenses, CopyEndUsers,
		CopyDevices, CopyLicenseDevices, CopySessions, CopyLeases, CopyNonces, CopyUsage, CopyAudit,
		CopyWebhooks, CopyOutboxEvents, CopyOutboxBodies, CopyDeliveries,
	}
}

// CopyRecord is one record of a copy: its kind and a value of the kind's
// type (see the constants).
type CopyRecord struct {
	Kind  CopyKind
	Value any
}

// CopyCounts counts records per kind.
type CopyCounts map[CopyKind]int

// Diff describes how c and other differ, kind by kind ("" when they agree).
func (c CopyCounts) Diff(other CopyCounts) string {
	var out []string
	for _, k := range CopyKinds() {
		if c[k] != other[k] {
			out = append(out, fmt.Sprintf("%s %d ≠ %d", k, c[k], other[k]))
		}
	}
	var extra []string
	for k := range c {
		if !isCopyKind(k) {
			extra = append(extra, fmt.Sprintf("unknown kind %s", k))
		}
	}
	for k := range other {
		if !isCopyKind(k) {
			extra = append(extra, fmt.Sprintf("unknown kind %s", k))
		}
	}
	sort.Strings(extra)
	return strings.Join(append(out, extra...), ", ")
}

func isCopyKind(k CopyKind) bool {
	for _, c := range CopyKinds() {
		if c == k {
			return true
		}
	}
	return false
}

// CopySource is a store that can stream every record it holds, from one
// consistent read.
type CopySource interface {
	// ExportRecords calls emit with every record, kind after kind in the
	// order of CopyKinds, and returns how many of each it emitted. An error
	// of emit stops the walk and is returned.
	ExportRecords(ctx context.Context, emit func(CopyRecord) error) (CopyCounts, error)
}

// CopyTarget is a store that can take a copy: it refuses unless it is
// empty, writes every record of the source in one transaction, and checks
// before committing that what it holds counts as the source said.
type CopyTarget interface {
	ImportRecords(ctx context.Context, src CopySource) (CopyCounts, error)
}

// ErrCopyTargetNotEmpty refuses a copy into a store that holds records.
type ErrCopyTargetNotEmpty struct {
	// Kind is the first kind found with records, and N how many.
	Kind CopyKind
	N    int
}

func (e *ErrCopyTargetNotEmpty) Error() string {
	return fmt.Sprintf("the target is not empty: it holds %s (%d); store copy writes only into an empty database", e.Kind, e.N)
}

// CopyMetaValue is a value a store keeps for the server under a name both
// stores share: MetaSecret's keys ("secret:" and the secret's name), the
// operator token's hash. A store's own bookkeeping (its schema version) is
// not one.
type CopyMetaValue struct {
	Name  string
	Value []byte
}

// CopyMailToken is a mail token as kept: under the hash of its plaintext
// (HashSecret).
type CopyMailToken struct {
	Hash      string
	Purpose   string
	MemberID  string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    time.Time // zero while unspent
}

// CopyExpiring is a spent anti-bot solution or a pending partner sign-in
// attempt, kept until it expires: Hash is the HashSecret of the solution or
// of the attempt's state.
type CopyExpiring struct {
	Hash      string
	ExpiresAt time.Time
}

// CopyOnboardingState is a member's onboarding progress.
type CopyOnboardingState struct {
	MemberID string
	Progress OnboardingProgress
}

// CopyPartnerIdentity links a provider identity to an account.
type CopyPartnerIdentity struct {
	Issuer          string
	Subject         string
	MemberID        string
	LinkedAt        time.Time
	AccountVerified bool
}

// CopySubscription is an organization's stored subscription (absent: the
// default one).
type CopySubscription struct {
	OrgID string
	State SubscriptionState
}

// CopyBillingTransaction is a checkout and its payment.
type CopyBillingTransaction struct {
	ID        string
	OrgID     string
	Plan      string
	Amount    int64
	Status    string
	DocKind   string
	Document  string
	Phone     string
	CopyPaste string
	CreatedAt time.Time
	ExpiresAt time.Time
	PaidAt    *time.Time
}

// CopyLicense is a license with the organization of its application. Its
// DevicesCount is not part of it: the target counts the license's
// CopyLicenseDevice records.
type CopyLicense struct {
	OrgID   string
	License License
}

// CopyLicenseDevice is a device bound to a license.
type CopyLicenseDevice struct {
	LicenseID string
	DeviceID  string
	BoundAt   time.Time
}

// CopySession is a runtime session as kept (Session): its tokens only as
// hashes, the retired refresh tokens' hashes that reveal reuse, and its
// times.
type CopySession = Session

// CopyLease is a floating seat held by a device.
type CopyLease struct {
	ID          string
	OrgID       string
	AppID       string
	EnvID       string
	LicenseID   string
	DeviceID    string
	Fingerprint string
	ExpiresAt   time.Time
	CreatedAt   time.Time
}

// CopyNonce is a runtime request nonce used in an environment.
type CopyNonce struct {
	EnvID     string
	Nonce     string
	ExpiresAt time.Time
}

// CopyUsageMonth is an organization's runtime requests in one month
// (MonthKey).
type CopyUsageMonth struct {
	OrgID    string
	Month    string
	Requests int64
}

// CopyAuditEntry is an audit entry with the environments whose log lists
// it (none: the organization's log).
type CopyAuditEntry struct {
	Entry  AuditEntry
	EnvIDs []string
}

// CopyWebhook is an endpoint with its secret and what only the dispatcher
// reads.
type CopyWebhook struct {
	Webhook Webhook
	// TimedOut: the last attempt ran into the timeout.
	TimedOut bool
}

// CopyOutboxEvent is a change's event not yet expanded into deliveries:
// the outbox's own, so the copy format is its fields.
type CopyOutboxEvent = OutboxEvent

// CopyOutboxBody is the payload the deliveries of one event share.
type CopyOutboxBody struct {
	EventID string
	Body    []byte
}

// CopyDelivery is a delivery, pending or done. Its payload is its own
// (Delivery.Body) or, when BodyOf is set, the CopyOutboxBody of that event.
// Queued: pending and waiting in the queue for its next attempt; a pending
// delivery of a disabled endpoint, or a test ping, is not.
type CopyDelivery struct {
	Delivery Delivery
	DoneAt   *time.Time
	BodyOf   string
	Queued   bool
}
