package store

import (
	"context"
	"time"
)

// minRetention is the youngest an audit entry or a finished delivery can be
// and still be removed: no tier keeps its log for less than a day, so a
// storage need look at nothing younger.
const minRetention = 24 * time.Hour

// RetentionCutoffs are the audit retention of every tier as of one moment
// (docs/design.md §12). An organization's retention is its tier's: the
// tier of its subscription's plan, the first tier of a key being the one in
// force, and the default tier when the plan is unset or no longer
// configured (SubscriptionState.TierIn). A storage hands the plan of each
// organization's stored subscription to Expired, or, when its query joins
// them itself, the Keys, Cutoffs and Default below.
type RetentionCutoffs struct {
	// Youngest is the latest time an entry can be from and still be
	// expired.
	Youngest time.Time
	// Keys are the keys of the tiers in force, each once; Cutoffs[i] is
	// the cutoff of Keys[i]: what is older has expired. A nil cutoff keeps
	// the log for ever.
	Keys    []string
	Cutoffs []*time.Time
	// Default is the default tier's cutoff, that of an organization whose
	// subscription names no configured tier.
	Default *time.Time
}

// NewRetentionCutoffs returns the cutoffs of p's tiers at now.
func NewRetentionCutoffs(p *BillingPolicy, now time.Time) *RetentionCutoffs {
	cutoff := func(t *Tier) *time.Time {
		if d := t.AuditLogRetentionDays; d >= 0 {
			c := now.AddDate(0, 0, -int(d))
			return &c
		}
		return nil
	}
	c := &RetentionCutoffs{Youngest: now.Add(-minRetention), Default: cutoff(p.DefaultTier())}
	for i := range p.Tiers {
		if t := &p.Tiers[i]; t.Key != "" && p.Tier(t.Key) == t {
			c.Keys = append(c.Keys, t.Key)
			c.Cutoffs = append(c.Cutoffs, cutoff(t))
		}
	}
	return c
}

// Cutoff is the cutoff of an organization whose stored subscription's plan
// is plan ("" for none); nil when its tier keeps the log for ever.
func (c *RetentionCutoffs) Cutoff(plan string) *time.Time {
	for i, k := range c.Keys {
		if k == plan {
			return c.Cutoffs[i]
		}
	}
	return c.Default
}

// Expired reports whether what an organization on plan logged at at is
// past its retention.
func (c *RetentionCutoffs) Expired(plan string, at time.Time) bool {
	cut := c.Cutoff(plan)
	return cut != nil && !at.After(c.Youngest) && at.Before(*cut)
}

// PruneAudit implements AuditRetention: the oldest audit entries, and the
// oldest finished deliveries, past their organization's retention, at most
// batch of each, in short transactions. Every server runs the pass; one
// that finds it held by another does nothing (0). A storage that looks at
// a bounded number of audit entries a transaction and finds none expired
// among them is asked again from where it stopped, so that a long run of
// entries kept for ever does not hide the expired ones behind it.
func (sv *Service) PruneAudit(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		return 0, nil
	}
	removed, from := 0, ""
	for first := true; ; first = false {
		next := ""
		err := sv.update(ctx, func(t Tx) error {
			removed, next = 0, ""
			if ok, err := t.PassLock("audit retention"); err != nil || !ok {
				return err
			}
			c := NewRetentionCutoffs(sv.BillingPolicy(), t.Now())
			entries, after, err := t.DeleteExpiredAudit(c, from, batch)
			if err != nil {
				return err
			}
			removed, next = entries, after
			if !first {
				return nil
			}
			done, err := t.DeleteExpiredDeliveries(c, batch)
			removed += done
			return err
		})
		if err != nil || removed > 0 || next == "" {
			return removed, err
		}
		from = next
	}
}

// Sweep names a background sweep of records that expire; it is also the
// name of the sweep's pass lock.
type Sweep string

// The sweeps a SweepChecker may be asked about.
const (
	SweepOfNonces   Sweep = "runtime nonces"
	SweepOfSessions Sweep = "runtime sessions"
	SweepOfCounters Sweep = "shared counters"
	SweepOfLeases   Sweep = "lease sweep"
)

// SweepChecker is a storage that tells, from a read outside any write,
// whether a sweep has anything to remove (bbolt reads the first key of a
// time-ordered bucket): the sweep asks it first, so that an idle round opens
// no write transaction. On bbolt a write that changes nothing still
// commits, and every commit sends the cached validation answers back to the
// full cascade. A storage that cannot tell for a sweep answers true.
type SweepChecker interface {
	SweepDue(ctx context.Context, s Sweep) (bool, error)
}

// sweepDue asks storage, when it can tell, whether sweep s has anything to
// do; true when it cannot tell.
func sweepDue(ctx context.Context, storage any, s Sweep) (bool, error) {
	if c, ok := storage.(SweepChecker); ok {
		return c.SweepDue(ctx, s)
	}
	return true, nil
}

// sweep runs one round of sweep s: under its pass lock (a server that finds
// it held skips the round), del removes up to limit expired records in one
// transaction opened by update, and the count is returned.
func sweep[T interface{ PassLock(string) (bool, error) }](ctx context.Context, storage any, s Sweep, limit int,
	update func(context.Context, func(T) error) error, del func(t T, limit int) (int, error)) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	if due, err := sweepDue(ctx, storage, s); err != nil || !due {
		return 0, err
	}
	n := 0
	err := update(ctx, func(t T) error {
		n = 0
		if ok, err := t.PassLock(string(s)); err != nil || !ok {
			return err
		}
		m, err := del(t, limit)
		n = m
		return err
	})
	return n, err
}

// SweepCounters implements Counters: it deletes up to limit shared
// counters whose window has closed.
func (sv *Service) SweepCounters(ctx context.Context, limit int) (int, error) {
	return sweep(ctx, sv.storage, SweepOfCounters, limit, sv.storage.Update, Tx.DeleteClosedCounters)
}

// SweepNonces implements RuntimeBackend: it deletes up to limit used
// nonces whose replay window has passed.
func (rs *RuntimeService) SweepNonces(ctx context.Context, limit int) (int, error) {
	return sweep(ctx, rs.storage, SweepOfNonces, limit, rs.storage.Update, RuntimeTx.DeleteExpiredNonces)
}

// SweepSessions implements RuntimeBackend: it deletes up to limit sessions
// past their absolute lifetime (no token of theirs can be used any more),
// oldest first.
func (rs *RuntimeService) SweepSessions(ctx context.Context, limit int) (int, error) {
	return sweep(ctx, rs.storage, SweepOfSessions, limit, rs.storage.Update, RuntimeTx.DeleteExpiredSessions)
}

// SwapOperatorTokenHash implements OperatorTokens: it stores hash ("" to
// remove it) when the stored hash is still old, in one transaction that
// holds the stored hash while it compares.
func (sv *Service) SwapOperatorTokenHash(ctx context.Context, old, hash string) (bool, error) {
	for _, f := range [][2]string{{"old", old}, {"hash", hash}} {
		if err := CheckStorable(f[0], f[1]); err != nil {
			return false, err
		}
	}
	swapped := false
	err := sv.update(ctx, func(t Tx) error {
		cur, err := t.LockOperatorTokenHash()
		if err != nil || cur != old {
			swapped = false
			return err
		}
		if old == hash {
			swapped = true
			return nil
		}
		swapped, err = t.PutOperatorTokenHash(old, hash)
		return err
	})
	return swapped, err
}
