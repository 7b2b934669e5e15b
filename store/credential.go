package store

import (
	"context"
	"time"
)

// APIKey is a developer API key of an organization. Only the hash of its
// plaintext is stored.
type APIKey struct {
	ID         string
	OrgID      string
	Label      string
	Hash       string
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	CreatedAt  time.Time
}

// AppSecret is a server-side secret of one application environment.
type AppSecret struct {
	ID            string
	OrgID         string
	AppID         string
	EnvironmentID string
	Env           string // environment name
	Label         string
	Hash          string
	LastUsedAt    *time.Time
	RevokedAt     *time.Time
	CreatedAt     time.Time
}

// CreateSecretInput creates an application secret in one environment.
type CreateSecretInput struct {
	EnvironmentID string
	Label         string
}

// APIKeys stores developer API keys.
type APIKeys interface {
	// CreateAPIKey returns the key and its plaintext, which is never stored.
	CreateAPIKey(ctx context.Context, orgID, label string) (*APIKey, string, error)
	// ListAPIKeys lists the organization's keys, newest first.
	ListAPIKeys(ctx context.Context, orgID string) ([]*APIKey, error)
	// RevokeAPIKey returns not_found. Revoking twice is not an error.
	RevokeAPIKey(ctx context.Context, orgID, id string) error
}

// AppSecrets stores application secrets.
type AppSecrets interface {
	// CreateAppSecret returns the secret and its plaintext. Returns
	// validation_failed (unknown environment), not_found.
	CreateAppSecret(ctx context.Context, ref AppRef, in CreateSecretInput) (*AppSecret, string, error)
	// ListAppSecrets lists the application's secrets, newest first.
	ListAppSecrets(ctx context.Context, ref AppRef) ([]*AppSecret, error)
	// RevokeAppSecret returns not_found.
	RevokeAppSecret(ctx context.Context, ref AppRef, id string) error
}

// Credentials authenticates the management credentials a request presents:
// only the server does this, so it is not part of Admin.
type Credentials interface {
	// AuthenticateAPIKey finds the unrevoked key with this plaintext and notes
	// its use. Returns unauthenticated.
	AuthenticateAPIKey(ctx context.Context, plaintext string) (*APIKey, error)
	// AuthenticateAppSecret finds the unrevoked secret with this plaintext and
	// notes its use. Returns unauthenticated.
	AuthenticateAppSecret(ctx context.Context, plaintext string) (*AppSecret, error)
}
