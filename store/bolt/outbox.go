package bolt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// The outbox: t.audit writes one outbox event per event that some active
// endpoint subscribes to, in the transaction of the change, so a change
// that rolls back enqueues nothing, a group-commit closure that is run again
// enqueues again only in the transaction that commits, and the change costs
// the same with 1 or 20 endpoints. ExpandEvents (outbox_expand.go) turns
// each event into one delivery per endpoint that matched it. Pending
// deliveries of active endpoints sit in the due indexes: by time (next
// attempt|delivery) for the queue's depth and age, and by endpoint
// (endpoint|next attempt|delivery) for the claim's round-robin.

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
	LastError      string          `json:"le,omitempty"`
	LastLatency    time.Duration   `json:"lat,omitempty"`
	LastAttemptAt  *time.Time      `json:"la,omitempty"`
	NextAttemptAt  *time.Time      `json:"na,omitempty"`
	DoneAt         *time.Time      `json:"da,omitempty"` // delivered or failed at
	CreatedAt      time.Time       `json:"ca"`
	Body           json.RawMessage `json:"body"` // embedded as JSON, not base64
	// BodyOf names the outbox event whose payload, kept once in
	// outbox_bodies, is the body: the deliveries of one event share it.
	BodyOf string `json:"bo,omitempty"`
}

// body is d's payload, its own or the one it shares.
func (t *txn) body(d *deliveryRecord) ([]byte, error) {
	if d.BodyOf == "" {
		return d.Body, nil
	}
	raw := t.tx.Bucket(bOutboxBodies).Get(idb(d.BodyOf))
	if raw == nil {
		return nil, fmt.Errorf("delivery %s: the payload of event %s is missing", d.ID, d.BodyOf)
	}
	return bytes.Clone(raw), nil
}

func (d *deliveryRecord) domain() *store.Delivery {
	return &store.Delivery{ID: d.ID, OrgID: d.OrgID, AppID: d.AppID, WebhookID: d.WebhookID, Event: d.Event, Status: d.Status,
		Attempts: d.Attempts, ResponseStatus: d.ResponseStatus, LastError: d.LastError, LastLatency: d.LastLatency,
		LastAttemptAt: d.LastAttemptAt, NextAttemptAt: d.NextAttemptAt, DoneAt: d.DoneAt, CreatedAt: d.CreatedAt, Body: d.Body}
}

// enqueue writes the outbox event of the audit entry e when an active
// endpoint subscribes to it. With no endpoint it costs one index seek per
// transaction; with endpoints, a match in memory and one record.
func (t *txn) enqueue(ev auditEvent, e *store.AuditEntry) error {
	if heard, err := store.Heard(t, ev.OrgID, ev.AppID, ev.Event); err != nil || !heard {
		return err
	}
	body, err := store.EventBody(ev, e.ID, snapshots{t}, t.now)
	if err != nil {
		return err
	}
	rec := &outboxEvent{ID: store.NewID(), OrgID: ev.OrgID, AppID: ev.AppID, Event: ev.Event, CreatedAt: t.now, Body: body}
	if err := t.put(bOutbox, rec.ID, rec); err != nil {
		return err
	}
	if err := t.appendBucket(bOutboxScope).Put(scopeKey(rec.OrgID, rec.AppID, rec.ID), []byte{}); err != nil {
		return err
	}
	if err := t.addCount(bOutbox, nil, 1); err != nil {
		return err
	}
	if !t.queued {
		t.queued = true
		t.tx.OnCommit(t.db.wake)
	}
	return nil
}

// newDelivery writes a pending delivery to w due at at (due: in the due
// indexes), with the id given or a new one.
func (t *txn) newDelivery(id string, w *storedoc.Webhook, event string, body []byte, at time.Time, due bool) (*deliveryRecord, error) {
	if id == "" {
		id = store.NewID()
	}
	d := &deliveryRecord{ID: id, OrgID: w.OrgID, AppID: w.AppID, WebhookID: w.ID, Event: event,
		Status: store.DeliveryPending, NextAttemptAt: &at, CreatedAt: at, Body: body}
	if err := t.saveDelivery(nil, d); err != nil {
		return nil, err
	}
	if !due {
		return d, nil
	}
	return d, t.due(d)
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

// snapshots loads the records of event snapshots for store.Snapshot, in
// the change's transaction.
type snapshots struct{ t *txn }

// load reads record id of bucket into a new T; nil when it is gone.
func load[T any](t *txn, bucket []byte, id string) (*T, error) {
	v := new(T)
	found, err := t.get(bucket, id, v)
	if err != nil || !found {
		return nil, err
	}
	return v, nil
}

func (s snapshots) LicenseItem(id string) (*store.LicenseItem, error) {
	l, err := load[store.License](s.t, bLicenses, id)
	if err != nil || l == nil {
		return nil, err
	}
	return s.t.licenseItem(l, map[string]string{})
}

func (s snapshots) EndUser(id string) (*store.EndUser, error) {
	return load[store.EndUser](s.t, bEndUsers, id)
}

func (s snapshots) Device(id string) (*store.Device, error) {
	return load[store.Device](s.t, bDevices, id)
}

func (s snapshots) Plan(id string) (*store.Plan, error) {
	p, err := load[store.Plan](s.t, bPlans, id)
	if err != nil || p == nil {
		return nil, err
	}
	p.Entitlements, err = s.t.entitlementRefs(p.AppID, p.EntitlementIDs)
	return p, err
}

func (s snapshots) Entitlement(id string) (*store.Entitlement, error) {
	return load[store.Entitlement](s.t, bEnts, id)
}

func (s snapshots) Application(id string) (*store.Application, error) {
	return load[store.Application](s.t, bApps, id)
}

func (s snapshots) Webhook(id string) (*store.Webhook, error) {
	w, err := load[storedoc.Webhook](s.t, bHooks, id)
	if err != nil || w == nil {
		return nil, err
	}
	return w.Domain(), nil
}

func (s snapshots) AppSecret(id string) (*store.AppSecret, error) {
	return load[store.AppSecret](s.t, bSecrets, id)
}

func (s snapshots) APIKey(id string) (*store.APIKey, error) {
	return load[store.APIKey](s.t, bAPIKeys, id)
}

func (s snapshots) Member(id string) (*store.Member, error) {
	return load[store.Member](s.t, bMembers, id)
}

func (s snapshots) Organization(id string) (*store.Organization, error) {
	return load[store.Organization](s.t, bOrgs, id)
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

// due puts d in the due indexes at its next attempt time.
func (t *txn) due(d *deliveryRecord) error {
	b := t.appendBucket(bDelivDue)
	k := key(timeKey(*d.NextAttemptAt), idb(d.ID))
	if b.Get(k) != nil {
		return nil
	}
	if err := b.Put(k, []byte{}); err != nil {
		return err
	}
	if err := t.tx.Bucket(bDelivDueHook).Put(dueHookKey(d), []byte{}); err != nil {
		return err
	}
	return t.addCount(bDelivDue, nil, 1)
}

// dueHookKey is d's key in the due index by endpoint.
func dueHookKey(d *deliveryRecord) []byte {
	return key(idb(d.WebhookID), timeKey(*d.NextAttemptAt), idb(d.ID))
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
	if err := t.tx.Bucket(bDelivDueHook).Delete(dueHookKey(d)); err != nil {
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
	if d.BodyOf != "" {
		if err := t.addCount(bOutboxBodies, idb(d.BodyOf), -1); err != nil {
			return err
		}
		if t.count(bOutboxBodies, idb(d.BodyOf)) == 0 {
			if err := t.del(bOutboxBodies, d.BodyOf); err != nil {
				return err
			}
		}
	}
	return t.del(bDeliveries, d.ID)
}
