package bolt

import (
	"licensectl/store"
	"licensectl/store/storedoc"
)

var _ store.Webhooks = (*DB)(nil)

// webhook loads an endpoint of ref's application; another application's is not_found.
func (t *txn) webhook(ref store.AppRef, id string) (*storedoc.Webhook, error) {
	w := new(storedoc.Webhook)
	if err := t.mustGet(bHooks, id, "webhook", w); err != nil {
		return nil, err
	}
	if w.AppID != ref.AppID || w.OrgID != ref.OrgID {
		return nil, store.NotFound("webhook")
	}
	return w, nil
}

// purgeWebhook removes an endpoint, its indexes and all its deliveries.
func (t *txn) purgeWebhook(w *storedoc.Webhook) error {
	t.hooks = nil
	for _, did := range t.all(bDelivHook, idb(w.ID)) {
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, did, "delivery", d); err != nil {
			return err
		}
		if err := t.dropDelivery(d); err != nil {
			return err
		}
	}
	if err := t.unindex(bHooksApp, idb(w.AppID), w.ID); err != nil {
		return err
	}
	if err := t.unindex(bHooksOrg, idb(w.OrgID), w.ID); err != nil {
		return err
	}
	return t.del(bHooks, w.ID)
}
