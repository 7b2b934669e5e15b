package store

import (
	"context"
	"time"
)

// DashboardSession implements Accounts: a session past its expiry, or
// whose member was removed, is refused like one never opened.
func (sv *Service) DashboardSession(ctx context.Context, id string) (*LoginResult, error) {
	var out *LoginResult
	err := sv.view(ctx, func(t Tx) error {
		s, m, err := t.DashboardSessionMember(id)
		if err != nil {
			return err
		}
		if s == nil || m == nil || !t.Now().Before(s.ExpiresAt) {
			return ErrDashboardToken()
		}
		out = &LoginResult{Member: m, Session: s}
		return nil
	})
	return out, err
}

// OperatorTokenHash implements OperatorTokens.
func (sv *Service) OperatorTokenHash(ctx context.Context) (string, error) {
	var h string
	err := sv.view(ctx, func(t Tx) (err error) {
		h, err = t.OperatorTokenHash()
		return err
	})
	return h, err
}

// OutboxStats implements Outbox: what waits is the queued deliveries and
// the events not expanded yet; the oldest is the earlier of the two.
func (sv *Service) OutboxStats(ctx context.Context) (int, time.Time, error) {
	var n int
	var oldest time.Time
	err := sv.view(ctx, func(t Tx) error {
		due, dueAt, err := t.QueuedDeliveries()
		if err != nil {
			return err
		}
		events, eventAt, err := t.UnexpandedEvents()
		if err != nil {
			return err
		}
		n, oldest = due+events, dueAt
		if oldest.IsZero() || !eventAt.IsZero() && eventAt.Before(oldest) {
			oldest = eventAt
		}
		return nil
	})
	return n, oldest, err
}

// licenseMachineFile is the content of a machine file of l on dev
// (NewMachineFile), with ents, the license's entitlement keys, and its
// end-user as stored, read without holding it.
func licenseMachineFile(t Tx, ra *RuntimeApp, l *License, p *Plan, dev *Device, ents []string, ttl int) (*MachineFile, error) {
	var user *EndUser
	if l.UserID != "" {
		var err error
		if user, err = t.EndUser(ra.Env.ID, l.UserID); err != nil {
			return nil, err
		}
	}
	return NewMachineFile(ra, l, p, dev, user, ents, ttl, t.Now()), nil
}

// RuntimeRequests implements Runtime: text that is no id names no
// organization, and counts none.
func (rs *RuntimeService) RuntimeRequests(ctx context.Context, orgID string, at time.Time) (int64, error) {
	if !ValidID(orgID) {
		return 0, nil
	}
	var n int64
	err := rs.storage.View(ctx, func(t Tx) (err error) {
		n, err = t.RuntimeRequests(orgID, at)
		return err
	})
	return n, err
}
