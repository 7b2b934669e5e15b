package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// The outbox's expansion is store.Service's (store/service_outbox_expand.go);
// the file keeps each event twice: by id in bOutbox (the oldest first) and
// by scope in bOutboxScope (org|app|id, app all zeros for an
// organization-level event), so that an endpoint change finds the events
// it could concern with one seek.

var _ store.OutboxWaiting = storage{}

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

func (e *outboxEvent) domain() *store.OutboxEvent {
	return &store.OutboxEvent{ID: e.ID, OrgID: e.OrgID, AppID: e.AppID, Event: e.Event, CreatedAt: e.CreatedAt, Body: e.Body}
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

func scopeKey(orgID, appID, id string) []byte { return key(scopePrefix(orgID, appID), idb(id)) }

// AppWebhooks implements store.Tx, read once per transaction.
func (t *txn) AppWebhooks(appID string) ([]*store.Webhook, error) {
	return t.scopeHooks("a"+appID, bHooksApp, idb(appID))
}

// OrgWebhooks implements store.Tx, read once per transaction.
func (t *txn) OrgWebhooks(orgID string) ([]*store.Webhook, error) {
	return t.scopeHooks("o"+orgID, bHooksOrg, idb(orgID))
}

// scopeHooks loads the endpoints listed under prefix in index, cached
// under k until an endpoint changes in this transaction.
func (t *txn) scopeHooks(k string, index, prefix []byte) ([]*store.Webhook, error) {
	if hooks, ok := t.hooks[k]; ok {
		return hooks, nil
	}
	all := t.all(index, prefix)
	slices.Reverse(all) // newest first in the index
	hooks := []*store.Webhook{}
	for _, id := range all {
		w := new(storedoc.Webhook)
		if err := t.mustGet(bHooks, id, "webhook", w); err != nil {
			return nil, err
		}
		hooks = append(hooks, w.Domain())
	}
	if t.hooks == nil {
		t.hooks = map[string][]*store.Webhook{}
	}
	t.hooks[k] = hooks
	return hooks, nil
}

// LockWebhookSet implements store.Tx: the one writer holds every endpoint.
func (t *txn) LockWebhookSet(string) error { return nil }

// ShareWebhookSet implements store.Tx: no other change runs meanwhile.
func (t *txn) ShareWebhookSet(string) (bool, error) { return true, nil }

// PendingEvents implements store.Tx.
func (t *txn) PendingEvents(limit int) ([]*store.OutboxEvent, error) {
	var pending []string
	c := t.tx.Bucket(bOutbox).Cursor()
	for k, _ := c.First(); k != nil && len(pending) < limit; k, _ = c.Next() {
		pending = append(pending, ids(k))
	}
	return t.outboxEvents(pending)
}

// ScopeEvents implements store.Tx.
func (t *txn) ScopeEvents(orgID, appID string) ([]*store.OutboxEvent, error) {
	var pending []string
	for _, prefix := range [][]byte{scopePrefix(orgID, appID), scopePrefix(orgID, "")} {
		c := t.tx.Bucket(bOutboxScope).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			pending = append(pending, ids(k[len(prefix):]))
		}
	}
	return t.outboxEvents(pending)
}

// outboxEvents loads the outbox events of ids.
func (t *txn) outboxEvents(pending []string) ([]*store.OutboxEvent, error) {
	out := make([]*store.OutboxEvent, 0, len(pending))
	for _, id := range pending {
		e := new(outboxEvent)
		if err := t.mustGet(bOutbox, id, "outbox event", e); err != nil {
			return nil, err
		}
		out = append(out, e.domain())
	}
	return out, nil
}

// WriteExpansion implements store.Tx: the deliveries name their event's
// payload, kept once in bOutboxBodies with the count of its deliveries.
func (t *txn) WriteExpansion(x []store.Expansion) error {
	for _, ex := range x {
		e := ex.Event
		for _, dd := range ex.Deliveries {
			d := &deliveryRecord{ID: dd.ID, OrgID: dd.OrgID, AppID: dd.AppID, WebhookID: dd.WebhookID, Event: dd.Event,
				Status: dd.Status, NextAttemptAt: dd.NextAttemptAt, CreatedAt: dd.CreatedAt, BodyOf: e.ID}
			if err := t.saveDelivery(nil, d); err != nil {
				return err
			}
			if err := t.due(d); err != nil {
				return err
			}
		}
		if n := len(ex.Deliveries); n > 0 {
			if err := t.appendBucket(bOutboxBodies).Put(idb(e.ID), e.Body); err != nil {
				return err
			}
			if err := t.addCount(bOutboxBodies, idb(e.ID), n); err != nil {
				return err
			}
		}
		if err := t.tx.Bucket(bOutboxScope).Delete(scopeKey(e.OrgID, e.AppID, e.ID)); err != nil {
			return err
		}
		if err := t.addCount(bOutbox, nil, -1); err != nil {
			return err
		}
		if err := t.del(bOutbox, e.ID); err != nil {
			return err
		}
	}
	return nil
}

// EventsWaiting implements store.OutboxWaiting: a read of the events'
// count.
func (s storage) EventsWaiting(ctx context.Context) (bool, error) {
	waiting := false
	err := s.db.view(ctx, func(t *txn) error { waiting = t.count(bOutbox, nil) > 0; return nil })
	return waiting, err
}
