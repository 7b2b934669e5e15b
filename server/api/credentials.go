package api

import (
	"time"
)

// APIKeyCreated answers API key creation; the plaintext is shown this once.
type APIKeyCreated struct {
	KeyID     string `json:"key_id"`
	Plaintext string `json:"plaintext"`
}

// APIKeyItem is a developer API key in lists; the plaintext is never listed.
type APIKeyItem struct {
	ID         string     `json:"id"`
	Label      string     `json:"label"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	CreatedAt  time.Time  `json:"created_at"`
}

// CreateSecretRequest is the body of POST /applications/{id}/secrets.
type CreateSecretRequest struct {
	EnvironmentID string `json:"environment_id"`
	Label         string `json:"label"`
}

// LabelRequest is the body of POST /api-keys.
type LabelRequest struct {
	Label string `json:"label"`
}

// SecretCreated answers secret creation; the plaintext is shown this once.
type SecretCreated struct {
	SecretID  string `json:"secret_id"`
	Plaintext string `json:"plaintext"`
}

// SecretItem is an application secret in lists; the plaintext is never listed.
type SecretItem struct {
	ID            string     `json:"id"`
	Label         string     `json:"label"`
	EnvironmentID string     `json:"environment_id"`
	LastUsedAt    *time.Time `json:"last_used_at"`
	RevokedAt     *time.Time `json:"revoked_at"`
	CreatedAt     time.Time  `json:"created_at"`
}
