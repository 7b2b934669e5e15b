package server

import (
	"context"
	"log/slog"
	"time"

	"licensectl/store"
)

// billingSweepInterval is how often subscriptions and checkouts are moved
// with time: a paid period ends on the minute, not on the second.
const billingSweepInterval = time.Minute

// billingSweeper moves subscriptions from active to past_due to the default
// tier and pending checkouts to expired, as time passes. Time is the store's
// clock, so tests move it by moving that clock.
type billingSweeper struct {
	store    store.BillingMaintenance
	interval time.Duration
	logger   *slog.Logger
	// changed is told of each organization whose subscription changed.
	changed func(orgID string)
}

// Run sweeps at once and then every interval until ctx ends.
func (b *billingSweeper) Run(ctx context.Context) error {
	return periodic{interval: b.interval, atStart: true, fn: b.sweep}.Run(ctx)
}

// sweep is one transaction, run to its end even when ctx ends during it, so
// stopping between sweeps leaves nothing half done.
func (b *billingSweeper) sweep(ctx context.Context) {
	orgs, err := b.store.SweepBilling(context.WithoutCancel(ctx))
	if err != nil {
		b.logger.Error("sweep billing", "err", err)
	}
	for _, org := range orgs {
		b.changed(org)
	}
}
