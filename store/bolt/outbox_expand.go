package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"licensectl/store"
)

// outboxEvent is an event waiting to be expanded into deliveries: what every
// delivery of it shares, written once by the change.
type outboxEvent struct {
	ID        string          `json:"id"`
	OrgID     string          `json:"org"`
	AppID     string          `json:"app,omitempty"` // "" for an organization-level event
	Event     string          `json:"ev"`
	CreatedAt time.Time       `json:"ca"`
	Body      json.RawMessage `json:"body"`
}

// noApp stands for the application of an organization-level event in keys.
var noApp = make([]byte, 16)

// scopePrefix is the key prefix of the events of one scope in bOutboxScope.
func scopePrefix(orgID, appID string) []byte {
	if appID == "" {
		return key(idb(orgID), noApp)
	}
	return key(idb(orgID), idb(appID))
}

func (e *outboxEvent) scopeKey() []byte { return key(scopePrefix(e.OrgID, e.AppID), idb(e.ID)) }

// activeHooks lists the active endpoints that hear the events of a scope:
// an application's endpoints, or for an organization-level event every
// endpoint of the organization. It is read once per transaction.
func (t *txn) activeHooks(orgID, appID string) ([]*webhookRecord, error) {
	k, index, prefix := "a"+appID, bHooksApp, idb(appID)
	switch {
	case appID != "":
	case orgID != "":
		k, index, prefix = "o"+orgID, bHooksOrg, idb(orgID)
	default:
		return nil, nil
	}
	if hooks, ok := t.hooks[k]; ok {
		return hooks, nil
	}
	hooks := []*webhookRecord{}
	for _, id := range t.all(index, prefix) {
		w := new(webhookRecord)
		if err := t.mustGet(bHooks, id, "webhook", w); err != nil {
			return nil, err
		}
		if w.Status == store.WebhookActive {
			hooks = append(hooks, w)
		}
	}
	if t.hooks == nil {
		t.hooks = map[string][]*webhookRecord{}
	}
	t.hooks[k] = hooks
	return hooks, nil
}

// expandEvent writes the deliveries of e, one per active endpoint of its
// scope subscribed to it, due since the event, and removes e. The endpoints
// are those of the event's time: every change to an endpoint first expands
// the pending events it could concern (settle), so none changed since.
func (t *txn) expandEvent(e *outboxEvent) (int, error) {
	hooks, err := t.activeHooks(e.OrgID, e.AppID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, w := range hooks {
		if !store.MatchAny(w.Events, e.Event) {
			continue
		}
		at := e.CreatedAt
		d := &deliveryRecord{ID: store.NewID(), OrgID: w.OrgID, AppID: w.AppID, WebhookID: w.ID, Event: e.Event,
			Status: store.DeliveryPending, NextAttemptAt: &at, CreatedAt: at, BodyOf: e.ID}
		if err := t.saveDelivery(nil, d); err != nil {
			return 0, err
		}
		if err := t.due(d); err != nil {
			return 0, err
		}
		n++
	}
	if n > 0 {
		// One copy of the payload for all the event's deliveries.
		if err := t.appendBucket(bOutboxBodies).Put(idb(e.ID), e.Body); err != nil {
			return 0, err
		}
		if err := t.addCount(bOutboxBodies, idb(e.ID), n); err != nil {
			return 0, err
		}
	}
	if err := t.tx.Bucket(bOutboxScope).Delete(e.scopeKey()); err != nil {
		return 0, err
	}
	if err := t.addCount(bOutbox, nil, -1); err != nil {
		return 0, err
	}
	return n, t.del(bOutbox, e.ID)
}

// settle expands the pending events an endpoint of (org, app) hears, before
// the endpoint changes (created, edited, enabled, disabled or deleted), so
// that expansion always sees the endpoints as they were when each event
// happened; it then forgets the endpoints read so far in this transaction.
// Events rarely wait: the dispatcher expands them as they commit.
func (t *txn) settle(orgID, appID string) error {
	for _, prefix := range [][]byte{scopePrefix(orgID, appID), scopePrefix(orgID, "")} {
		var pending []string
		c := t.tx.Bucket(bOutboxScope).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			pending = append(pending, ids(k[len(prefix):]))
		}
		for _, id := range pending {
			e := new(outboxEvent)
			if err := t.mustGet(bOutbox, id, "outbox event", e); err != nil {
				return err
			}
			if _, err := t.expandEvent(e); err != nil {
				return err
			}
		}
	}
	t.hooks = nil
	return nil
}

// expandBatch bounds the deliveries one expansion transaction writes, so the
// writer is never held long by a large fan-out.
const expandBatch = 1000

// ExpandEvents implements store.Outbox.
func (db *DB) ExpandEvents(ctx context.Context, limit int) (int, error) {
	// The dispatcher asks on every poll: an empty outbox costs a read, not
	// a commit.
	waiting := 0
	if err := db.view(ctx, func(t *txn) error { waiting = t.count(bOutbox, nil); return nil }); err != nil || waiting == 0 {
		return 0, err
	}
	n := 0
	err := db.update(ctx, func(t *txn) error {
		n = 0
		var pending []string
		c := t.tx.Bucket(bOutbox).Cursor()
		for k, _ := c.First(); k != nil && len(pending) < limit; k, _ = c.Next() {
			pending = append(pending, ids(k))
		}
		written := 0
		for _, id := range pending {
			if written >= expandBatch {
				break
			}
			e := new(outboxEvent)
			if err := t.mustGet(bOutbox, id, "outbox event", e); err != nil {
				return err
			}
			d, err := t.expandEvent(e)
			if err != nil {
				return err
			}
			written += d
			n++
		}
		return nil
	})
	return n, err
}
