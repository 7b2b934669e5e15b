package postgres

// Not yet built: the runtime part (see the brief).

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

var errNotBuiltruntime = errors.New("postgres: not built yet")

// Activate implements store.RuntimeBackend.
func (r *Runtime) Activate(ctx context.Context, c store.RuntimeClient, in store.ActivateInput) (*store.Activation, error) {
	return nil, errNotBuiltruntime
}

// AddRuntimeRequests implements store.RuntimeBackend.
func (r *Runtime) AddRuntimeRequests(ctx context.Context, at time.Time, counts map[string]int64) error {
	return errNotBuiltruntime
}

// FlushSeen implements store.RuntimeBackend.
func (r *Runtime) FlushSeen(ctx context.Context) (int, error) {
	return 0, errNotBuiltruntime
}

// Login implements store.RuntimeBackend.
func (r *Runtime) Login(ctx context.Context, c store.RuntimeClient, in store.RuntimeLoginInput) (*store.RuntimeSession, error) {
	return nil, errNotBuiltruntime
}

// Logout implements store.RuntimeBackend.
func (r *Runtime) Logout(ctx context.Context, c store.RuntimeClient, accessToken string) error {
	return errNotBuiltruntime
}

// Refresh implements store.RuntimeBackend.
func (r *Runtime) Refresh(ctx context.Context, c store.RuntimeClient, refreshToken string) (*store.RuntimeSession, error) {
	return nil, errNotBuiltruntime
}

// ResetDevice implements store.RuntimeBackend.
func (r *Runtime) ResetDevice(ctx context.Context, c store.RuntimeClient, in store.DeviceResetInput) (int, error) {
	return 0, errNotBuiltruntime
}

// ResolveApp implements store.RuntimeBackend.
func (r *Runtime) ResolveApp(ctx context.Context, c store.RuntimeClient) (*store.RuntimeApp, error) {
	return nil, errNotBuiltruntime
}

// RuntimeRequests implements store.RuntimeBackend.
func (r *Runtime) RuntimeRequests(ctx context.Context, orgID string, at time.Time) (int64, error) {
	return 0, errNotBuiltruntime
}

// SweepNonces implements store.RuntimeBackend.
func (r *Runtime) SweepNonces(ctx context.Context, limit int) (int, error) {
	return 0, errNotBuiltruntime
}

// SweepSessions implements store.RuntimeBackend.
func (r *Runtime) SweepSessions(ctx context.Context, limit int) (int, error) {
	return 0, errNotBuiltruntime
}

// Validate implements store.RuntimeBackend.
func (r *Runtime) Validate(ctx context.Context, c store.RuntimeClient, accessToken string) (*store.Validation, error) {
	return nil, errNotBuiltruntime
}
