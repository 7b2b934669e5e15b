package postgres

// Not yet built: the runtime fixtures (runtime helper) (see the brief).

import (
	"context"
	"errors"
	"io"
	"time"

	"licensectl/store"
)

var _ = io.EOF
var _ = time.Second
var _ context.Context

var errNotBuiltruntimefx = errors.New("postgres: not built yet")

// SeedLegacyRefreshToken implements store.storetest.Fixtures.
func (db *DB) SeedLegacyRefreshToken(ctx context.Context, sessionID string) (string, error) {
	return "", errNotBuiltruntimefx
}

// SessionRevokeReason implements store.storetest.Fixtures.
func (db *DB) SessionRevokeReason(ctx context.Context, id string) (string, error) {
	return "", errNotBuiltruntimefx
}

var _ store.Scope
