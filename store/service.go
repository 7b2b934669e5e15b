package store

import (
	"context"
	"sync/atomic"
)

// Service is the orchestration of the changes: each is one method that
// opens a transaction of its Storage, reads, applies the rules of this
// package in order, and writes the change, its audit entry and its outbox
// events through the narrow Tx. store/bolt and store/postgres embed one, so
// the methods of Backend it implements are written once, for both stores.
//
// A method of Service decides; its Tx only reads and writes. What a storage
// does faster than a sequence of Tx calls (a one-statement read, a claim
// with SKIP LOCKED, a conditional UPDATE … RETURNING) stays a primitive of
// the Tx, named for what it does rather than how.
type Service struct {
	// Policies are the knobs the store was opened with.
	Policies
	storage Storage
	portal  *portalState
	// billing is the policy ConfigureBilling set; nil until then.
	billing *atomic.Pointer[BillingPolicy]
}

// NewService returns the orchestration over storage under policies (their
// defaults filled in).
func NewService(policies Policies, storage Storage) Service {
	return Service{Policies: policies.WithDefaults(), storage: storage, portal: new(portalState), billing: new(atomic.Pointer[BillingPolicy])}
}

// update runs fn in one read-write transaction of the storage.
func (sv *Service) update(ctx context.Context, fn func(t Tx) error) error {
	return sv.storage.Update(ctx, fn)
}

// view runs fn in one read-only transaction of the storage.
func (sv *Service) view(ctx context.Context, fn func(t Tx) error) error {
	return sv.storage.View(ctx, fn)
}
