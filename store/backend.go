package store

import (
	"context"
	"io"
	"time"
)

// Backend is everything the server needs of a store: the admin interface,
// what only the server does (authentication, accounts, the runtime API,
// outbox, maintenance), and its internals for the metrics. store/bolt
// implements it on a file; a server is built on one (server.New) and owns
// it from then on.
type Backend interface {
	Admin
	Credentials
	Accounts
	Partners
	MailTokens
	Onboarding
	BillingMaintenance
	PaymentCallbacks
	Quotas
	Outbox
	AuditRetention
	StatsReporter
	Maintenance
	EndUserAccounts
	OperatorTokens
	Counters
	OrganizationSlugs
	Portal
	// OpenRuntime returns the runtime API of the store with these options.
	OpenRuntime(o RuntimeOptions) RuntimeBackend
}

// Maintenance is the housekeeping a server does on its store.
type Maintenance interface {
	// Ping reports whether the store can serve reads and, after a write
	// failed for want of space, writes.
	Ping(ctx context.Context) error
	// ExpireLicenses stores the expiry of lapsed licenses and returns how
	// many it moved.
	ExpireLicenses(ctx context.Context) (int, error)
	// MetaSecret returns the secret kept under name, creating it with gen on
	// first use (signing keys that must survive restarts).
	MetaSecret(name string, gen func() ([]byte, error)) ([]byte, error)
	// Close releases the store.
	Close() error
}

// OrganizationSlugs finds organizations by slug, for the operator's
// requests that name one by its slug instead of its id (the CLI's --org
// takes either).
type OrganizationSlugs interface {
	// FindOrganizationBySlug returns the organization of this slug (which
	// never changes). Returns not_found.
	FindOrganizationBySlug(ctx context.Context, slug string) (*Organization, error)
}

// OperatorTokens keep the hash of the operator token, the credential of
// /v1/admin (docs/design.md §12): in the store, so that every server on one
// database accepts the same token and a rotation holds on all of them at
// once. The plaintext is never stored.
type OperatorTokens interface {
	// OperatorTokenHash returns the stored hash, or "" when the store has
	// none yet.
	OperatorTokenHash(ctx context.Context) (string, error)
	// SwapOperatorTokenHash stores hash ("" removes it) if the stored one
	// is still old ("" meaning none), and reports whether it did: of servers
	// initialising one empty store together, exactly one wins.
	SwapOperatorTokenHash(ctx context.Context, old, hash string) (bool, error)
}

// FileBackup is what a store kept in one file offers besides Backend: a
// consistent copy of that file, streamed while it serves. It is optional: a
// store on a database server (PostgreSQL) is backed up with that database's
// own tools, and the server answers backup_unsupported for it.
type FileBackup interface {
	// Backup writes a consistent copy of the whole store to w and returns
	// how many bytes it wrote.
	Backup(ctx context.Context, w io.Writer) (int64, error)
}

// EndUserAccounts creates and finds end-users outside the runtime API
// (management role calls, imports).
type EndUserAccounts interface {
	// RegisterEndUser returns validation_failed, email_taken, not_found.
	RegisterEndUser(ctx context.Context, s Scope, email, password string) (*EndUser, error)
	// FindEndUser finds an end-user of any application of the organization.
	// Returns not_found.
	FindEndUser(ctx context.Context, orgID, id string) (*EndUser, error)
}

// RuntimeOptions configure the runtime API of a store.
type RuntimeOptions struct {
	// Signer signs access tokens; required.
	Signer TokenSigner
	// SessionOf reads the session id an access token names, without
	// verifying the token: a store may find the session by that id and
	// prove the token by comparing its hash with the session's in constant
	// time (docs/design.md §5), instead of keeping an index of token hashes
	// whose random keys cost a page write per new token. Required with
	// Signer; it must read what Signer writes as AccessClaims.SessionID.
	SessionOf          func(accessToken string) string
	Issuer             string
	AccessTTL          time.Duration
	RefreshIdleTTL     time.Duration
	RefreshAbsoluteTTL time.Duration
	ReplayWindow       time.Duration
	// RefreshReuseGrace forgives the token retired by a session's last
	// rotation for this long (docs/design.md §5); 0 forgives nothing.
	RefreshReuseGrace time.Duration
	// SeenInterval is how stale a device's last_seen_at may get before a
	// validation queues a refresh of it; 0 means 5 minutes.
	SeenInterval time.Duration
}

// RuntimeBackend is the runtime API with the housekeeping its workers do.
type RuntimeBackend interface {
	Runtime
	// FlushSeen writes the last-seen times held in memory; it returns how
	// many it wrote.
	FlushSeen(ctx context.Context) (int, error)
	// SweepSessions removes up to limit sessions past their absolute
	// lifetime and returns how many.
	SweepSessions(ctx context.Context, limit int) (int, error)
	// SweepNonces removes up to limit nonces past the replay window; a
	// store may keep a spent nonce up to a minute longer, to purge whole
	// minutes at once. Whether a nonce is refused never waits for it.
	SweepNonces(ctx context.Context, limit int) (int, error)
	// SweepLeases removes up to limit leases past their expiry, each with a
	// license.lease_expired event, and returns how many.
	SweepLeases(ctx context.Context, limit int) (int, error)
}
