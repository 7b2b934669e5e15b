package store

import (
	"context"
	"time"
)

// PasswordHasher hashes and checks passwords; store/password implements it.
type PasswordHasher interface {
	Hash(ctx context.Context, plain string) (string, error)
	Verify(ctx context.Context, plain, encoded string) (bool, error)
}

// Policies are what a store is opened with besides where its records
// live: the same for either store, built once by whoever opens one.
type Policies struct {
	// Clock is the time source; nil means SystemClock.
	Clock Clock
	// Hasher hashes member and end-user passwords; nil refuses what
	// needs one.
	Hasher PasswordHasher
	// Passwords checks new passwords; nil accepts any non-empty password.
	Passwords PasswordPolicy
	// CommonPassword reports a password too common for an end-user
	// (store/password.IsCommon, which the storages fill in when nil).
	CommonPassword func(string) bool
	// MaxQueueWait bounds how long a write waits for its turn (the single
	// writer, a pooled connection) before it is refused as overloaded
	// (docs/design.md §14); 0 waits as long as it takes, as the CLI's
	// one-off writes may.
	MaxQueueWait time.Duration
	// MachineFiles signs the machine files IssueMachineFile issues; nil
	// refuses them as unavailable.
	MachineFiles MachineFileSigner
	// MaxWebhookEndpoints bounds the endpoints of one application
	// (webhooks.max_endpoints); 0 means DefaultMaxEndpoints.
	MaxWebhookEndpoints int
}

// WithDefaults fills what p leaves unset.
func (p Policies) WithDefaults() Policies {
	if p.Clock == nil {
		p.Clock = SystemClock
	}
	return p
}

// MaxEndpoints is webhooks.max_endpoints.
func (p Policies) MaxEndpoints() int {
	if p.MaxWebhookEndpoints > 0 {
		return p.MaxWebhookEndpoints
	}
	return DefaultMaxEndpoints
}
