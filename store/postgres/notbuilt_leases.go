package postgres

// Not yet built: the leases part (see the brief).

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

var errNotBuiltleases = errors.New("postgres: not built yet")

// CheckoutLease implements store.RuntimeBackend.
func (r *Runtime) CheckoutLease(ctx context.Context, c store.RuntimeClient, accessToken string, rp store.Replay) (*store.LeaseGrant, error) {
	return nil, errNotBuiltleases
}

// CheckoutMachineFile implements store.RuntimeBackend.
func (r *Runtime) CheckoutMachineFile(ctx context.Context, c store.RuntimeClient, in store.MachineFileInput) (*store.MachineFile, error) {
	return nil, errNotBuiltleases
}

// HeartbeatLease implements store.RuntimeBackend.
func (r *Runtime) HeartbeatLease(ctx context.Context, c store.RuntimeClient, in store.LeaseInput) (*store.Lease, error) {
	return nil, errNotBuiltleases
}

// ReleaseLease implements store.RuntimeBackend.
func (r *Runtime) ReleaseLease(ctx context.Context, c store.RuntimeClient, in store.LeaseInput) error {
	return errNotBuiltleases
}

// SweepLeases implements store.RuntimeBackend.
func (r *Runtime) SweepLeases(ctx context.Context, limit int) (int, error) {
	return 0, errNotBuiltleases
}
