package bolt

import (
	"encoding/json"
	"time"

	"licensectl/store"
)

// The outbox: t.audit enqueues one delivery per active endpoint subscribed
// to the event, in the transaction of the change, so a change that rolls
// back enqueues nothing and a group-commit closure that is run again
// enqueues again only in the transaction that commits. Pending deliveries of
// active endpoints sit in the due index (next attempt|delivery), so the
// dispatcher's claim is a seek to the start and a walk up to now.

// deliveryRecord is a delivery on disk.
type deliveryRecord struct {
	ID             string          `json:"id"`
	OrgID          string          `json:"org"`
	AppID          string          `json:"app"`
	WebhookID      string          `json:"wh"`
	Event          string          `json:"ev"`
	Status         string          `json:"st"`
	Attempts       int             `json:"n,omitempty"`
	ResponseStatus int             `json:"rs,omitempty"`
	LastAttemptAt  *time.Time      `json:"la,omitempty"`
	NextAttemptAt  *time.Time      `json:"na,omitempty"`
	DoneAt         *time.Time      `json:"da,omitempty"` // delivered or failed at
	CreatedAt      time.Time       `json:"ca"`
	Body           json.RawMessage `json:"body"` // embedded as JSON, not base64
}

func (d *deliveryRecord) domain() *store.Delivery {
	return &store.Delivery{ID: d.ID, OrgID: d.OrgID, AppID: d.AppID, WebhookID: d.WebhookID, Event: d.Event, Status: d.Status,
		Attempts: d.Attempts, ResponseStatus: d.ResponseStatus, LastAttemptAt: d.LastAttemptAt, NextAttemptAt: d.NextAttemptAt,
		CreatedAt: d.CreatedAt, Body: d.Body}
}

// enqueue writes the deliveries of the audit entry e. With no endpoint in
// the application (or organization) it costs one index seek.
func (t *txn) enqueue(ev auditEvent, e *store.AuditEntry) error {
	var hooks []string
	switch {
	case ev.AppID != "":
		hooks = t.all(bHooksApp, idb(ev.AppID))
	case ev.OrgID != "":
		hooks = t.all(bHooksOrg, idb(ev.OrgID))
	}
	var body []byte
	queued := false
	for _, hid := range hooks {
		w := new(webhookRecord)
		if err := t.mustGet(bHooks, hid, "webhook", w); err != nil {
			return err
		}
		if w.Status != store.WebhookActive || !store.MatchAny(w.Events, ev.Event) {
			continue
		}
		if body == nil {
			var err error
			if body, err = t.payload(ev, e); err != nil {
				return err
			}
		}
		if err := t.newDelivery(w, ev.Event, body, true); err != nil {
			return err
		}
		queued = true
	}
	if queued {
		t.tx.OnCommit(t.db.wake)
	}
	return nil
}

// newDelivery writes a pending delivery to w; due puts it in the due index.
func (t *txn) newDelivery(w *webhookRecord, event string, body []byte, due bool) error {
	now := t.now
	d := &deliveryRecord{ID: store.NewID(), OrgID: w.OrgID, AppID: w.AppID, WebhookID: w.ID, Event: event,
		Status: store.DeliveryPending, NextAttemptAt: &now, CreatedAt: now, Body: body}
	if err := t.saveDelivery(nil, d); err != nil {
		return err
	}
	if !due {
		return nil
	}
	return t.due(d)
}

// wake tells the dispatcher that deliveries were queued; it never blocks.
func (db *DB) wake() {
	select {
	case db.enqueued <- struct{}{}:
	default:
	}
}

// Enqueued implements store.Outbox.
func (db *DB) Enqueued() <-chan struct{} { return db.enqueued }

// payload renders the body of ev's deliveries once, with the snapshot of
// the object it concerns as it stands in this transaction.
func (t *txn) payload(ev auditEvent, e *store.AuditEntry) ([]byte, error) {
	data := store.EventData{AuditID: e.ID}
	if ev.AppID != "" {
		appID := ev.AppID
		data.ApplicationID = &appID
		a := new(store.Application)
		found, err := t.get(bApps, ev.AppID, a)
		if err != nil {
			return nil, err
		}
		if found && len(ev.EnvIDs) == 1 {
			for _, env := range a.Environments {
				if env.ID == ev.EnvIDs[0] {
					name := env.Name
					data.Environment = &name
				}
			}
		}
	}
	kind, obj, err := t.snapshot(ev.Target)
	if err != nil {
		return nil, err
	}
	data.Kind, data.Object = kind, obj
	return json.Marshal(store.EventPayload{Type: ev.Event, Timestamp: t.now.UTC(), Data: data})
}

// snapshot reads the object an event concerns. An object that is gone (a
// deletion) or of a kind without a richer snapshot is its id alone.
func (t *txn) snapshot(target store.Target) (string, any, error) {
	if target.Type == "" {
		return "", nil, nil
	}
	ref := store.RefSnapshot{ID: target.ID}
	if target.ID == "" {
		return target.Type, nil, nil
	}
	var found bool
	var err error
	var obj any
	switch target.Type {
	case "license":
		l := new(store.License)
		if found, err = t.get(bLicenses, target.ID, l); found && err == nil {
			var item *store.LicenseItem
			if item, err = t.licenseItem(l, map[string]string{}); err == nil {
				obj = store.SnapshotLicense(item, t.now)
			}
		}
	case "user":
		u := new(store.EndUser)
		if found, err = t.get(bEndUsers, target.ID, u); found {
			obj = store.SnapshotUser(u)
		}
	case "device":
		d := new(store.Device)
		if found, err = t.get(bDevices, target.ID, d); found {
			obj = store.SnapshotDevice(d)
		}
	case "plan":
		p := new(store.Plan)
		if found, err = t.get(bPlans, target.ID, p); found {
			obj = store.SnapshotPlan(p)
		}
	case "entitlement":
		e := new(store.Entitlement)
		if found, err = t.get(bEnts, target.ID, e); found {
			obj = store.SnapshotEntitlement(e)
		}
	case "application":
		a := new(store.Application)
		if found, err = t.get(bApps, target.ID, a); found {
			obj = store.SnapshotApplication(a)
		}
	case "webhook":
		w := new(webhookRecord)
		if found, err = t.get(bHooks, target.ID, w); found {
			obj = store.SnapshotWebhook(w.domain())
		}
	}
	if err != nil {
		return "", nil, err
	}
	if obj == nil {
		obj = ref
	}
	return target.Type, obj, nil
}

// saveDelivery writes d and moves its status index entry from prev's.
func (t *txn) saveDelivery(prev, d *deliveryRecord) error {
	if err := t.put(bDeliveries, d.ID, d); err != nil {
		return err
	}
	if prev == nil {
		if err := t.index(bDelivHook, idb(d.WebhookID), d.ID); err != nil {
			return err
		}
	} else if prev.Status != d.Status {
		if err := t.unindex(bDelivHookStatus, key(idb(d.WebhookID), str(prev.Status)), d.ID); err != nil {
			return err
		}
	}
	if prev == nil || prev.Status != d.Status {
		if err := t.index(bDelivHookStatus, key(idb(d.WebhookID), str(d.Status)), d.ID); err != nil {
			return err
		}
	}
	if d.DoneAt != nil && (prev == nil || prev.DoneAt == nil) {
		return t.tx.Bucket(bDelivDone).Put(key(timeKey(*d.DoneAt), idb(d.ID)), []byte{})
	}
	if d.DoneAt == nil && prev != nil && prev.DoneAt != nil {
		return t.tx.Bucket(bDelivDone).Delete(key(timeKey(*prev.DoneAt), idb(d.ID)))
	}
	return nil
}

// due puts d in the due index at its next attempt time.
func (t *txn) due(d *deliveryRecord) error {
	b := t.appendBucket(bDelivDue)
	k := key(timeKey(*d.NextAttemptAt), idb(d.ID))
	if b.Get(k) != nil {
		return nil
	}
	if err := b.Put(k, []byte{}); err != nil {
		return err
	}
	return t.addCount(bDelivDue, nil, 1)
}

// undue takes d out of the due index, if it is there.
func (t *txn) undue(d *deliveryRecord) error {
	if d.NextAttemptAt == nil {
		return nil
	}
	b := t.tx.Bucket(bDelivDue)
	k := key(timeKey(*d.NextAttemptAt), idb(d.ID))
	if b.Get(k) == nil {
		return nil
	}
	if err := b.Delete(k); err != nil {
		return err
	}
	return t.addCount(bDelivDue, nil, -1)
}

// dropDelivery deletes d and every index entry of it.
func (t *txn) dropDelivery(d *deliveryRecord) error {
	if err := t.undue(d); err != nil {
		return err
	}
	if d.DoneAt != nil {
		if err := t.tx.Bucket(bDelivDone).Delete(key(timeKey(*d.DoneAt), idb(d.ID))); err != nil {
			return err
		}
	}
	if err := t.unindex(bDelivHookStatus, key(idb(d.WebhookID), str(d.Status)), d.ID); err != nil {
		return err
	}
	if err := t.unindex(bDelivHook, idb(d.WebhookID), d.ID); err != nil {
		return err
	}
	return t.del(bDeliveries, d.ID)
}
