package store

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// The outbox's fan-out (docs/design.md §9): a change writes one outbox
// event per event that some endpoint hears (Tx.Audit), and the expansion
// turns each into one delivery per endpoint that heard it when it
// happened. Every change deciding who hears an event holds the
// organization's endpoints and expands the pending events they could
// concern first (holdWebhooks), so an expansion done later still sees the
// endpoints of the event's time.

// OutboxEvent is an event waiting to be expanded into deliveries: what
// every delivery of it shares, written once by the change.
type OutboxEvent struct {
	ID        string
	OrgID     string
	AppID     string // "" for an organization-level event
	Event     string
	CreatedAt time.Time
	Body      []byte
}

// Expansion is one expanded event and the deliveries it made (none when no
// endpoint hears it any more); its deliveries share the event's payload.
type Expansion struct {
	Event      *OutboxEvent
	Deliveries []*Delivery
}

// OutboxWaiting is a Storage that can tell outside any write whether an
// outbox event waits (bbolt reads a count): the dispatcher asks on every
// poll, and an empty outbox then costs a read, not a commit.
type OutboxWaiting interface {
	EventsWaiting(ctx context.Context) (bool, error)
}

// expandBatch bounds the deliveries one expansion transaction writes, so
// that a large fan-out never holds a writer (bbolt's one, PostgreSQL's
// row locks) long.
const expandBatch = 1000

// Hears reports whether endpoint w is sent event now: active and
// subscribed to it. Whose events it hears is ScopeWebhooks'.
func (w *Webhook) Hears(event string) bool {
	return w.Status == WebhookActive && MatchAny(w.Events, event)
}

// Heard reports whether any endpoint of the scope (orgID, appID) hears
// event: whether the change writes an outbox event for it at all.
func Heard(t Tx, orgID, appID, event string) (bool, error) {
	hooks, err := scopeWebhooks(t, orgID, appID)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(hooks, func(w *Webhook) bool { return w.Hears(event) }), nil
}

// scopeWebhooks loads the endpoints that hear the events of a scope: an
// application's endpoints, or for an organization-level event (appID "")
// the endpoints of every application of the organization.
func scopeWebhooks(t Tx, orgID, appID string) ([]*Webhook, error) {
	switch {
	case appID != "":
		return t.AppWebhooks(appID)
	case orgID != "":
		return t.OrgWebhooks(orgID)
	}
	return nil, nil
}

// expander builds the deliveries of events in one transaction.
type expander struct {
	t       Tx
	written int
	out     []Expansion
}

// add expands e: one pending delivery per endpoint of its scope that hears
// it, with a new id, created and first due when the event happened.
func (x *expander) add(e *OutboxEvent) error {
	hooks, err := scopeWebhooks(x.t, e.OrgID, e.AppID)
	if err != nil {
		return err
	}
	ex := Expansion{Event: e}
	for _, w := range hooks {
		if !w.Hears(e.Event) {
			continue
		}
		at := e.CreatedAt
		ex.Deliveries = append(ex.Deliveries, &Delivery{ID: NewID(), OrgID: w.OrgID, AppID: w.AppID, WebhookID: w.ID, Event: e.Event,
			Status: DeliveryPending, NextAttemptAt: &at, CreatedAt: at})
	}
	x.written += len(ex.Deliveries)
	x.out = append(x.out, ex)
	return nil
}

// ExpandEvents implements Outbox: up to limit events, oldest first, but
// no more than expandBatch deliveries' worth in one transaction. An
// organization whose endpoints are changing is left to the change, which
// expands its events itself.
func (sv *Service) ExpandEvents(ctx context.Context, limit int) (int, error) {
	if w, ok := sv.storage.(OutboxWaiting); ok {
		if waiting, err := w.EventsWaiting(ctx); err != nil || !waiting {
			return 0, err
		}
	}
	n := 0
	err := sv.update(ctx, func(t Tx) error {
		n = 0
		events, err := t.PendingEvents(max(limit, 0))
		if err != nil || len(events) == 0 {
			return err
		}
		x := &expander{t: t}
		free := map[string]bool{}
		for _, e := range events {
			if x.written >= expandBatch {
				break
			}
			ok, seen := free[e.OrgID]
			if !seen {
				if ok, err = t.ShareWebhookSet(e.OrgID); err != nil {
					return err
				}
				free[e.OrgID] = ok
			}
			if !ok {
				continue
			}
			if err := x.add(e); err != nil {
				return err
			}
			n++
		}
		return t.WriteExpansion(x.out)
	})
	return n, err
}

// holdWebhooks holds the set of endpoints of organization orgID until the
// transaction ends, so that two creations cannot both pass the endpoint
// bound, and first expands the events of application appID (and of the
// organization) already written, against the endpoints as they stand: an
// event is heard by the endpoints of its time. Every change deciding who
// hears events (an endpoint created, edited, enabled, disabled, deleted)
// calls it before it changes an endpoint.
func holdWebhooks(t Tx, orgID, appID string) error {
	if err := t.LockWebhookSet(orgID); err != nil {
		return err
	}
	events, err := t.ScopeEvents(orgID, appID)
	if err != nil || len(events) == 0 {
		return err
	}
	slices.SortFunc(events, func(a, b *OutboxEvent) int { return cmp.Compare(a.ID, b.ID) })
	x := &expander{t: t}
	for _, e := range events {
		if err := x.add(e); err != nil {
			return err
		}
	}
	return t.WriteExpansion(x.out)
}
