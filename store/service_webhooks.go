package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
)

// EnvIDs are the ids of the application's environments: an entry about the
// application as a whole is listed in the log of each.
func (a *Application) EnvIDs() []string {
	out := make([]string, 0, len(a.Environments))
	for _, e := range a.Environments {
		out = append(out, e.ID)
	}
	return out
}

// NewWebhookSecret is the Standard Webhooks form: whsec_ and the standard
// base64 of 24 random bytes.
func NewWebhookSecret() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return PrefixWebhook + base64.StdEncoding.EncodeToString(b[:])
}

// changeWebhook loads, held, an endpoint of ref's application that is about
// to change, with its application; the set of the organization's endpoints
// is held and the events written before settled against it first.
func changeWebhook(t Tx, ref AppRef, id string) (*Application, *Webhook, error) {
	a, err := t.App(ref)
	if err != nil {
		return nil, nil, err
	}
	if err := holdWebhooks(t, a.OrgID, a.ID); err != nil {
		return nil, nil, err
	}
	w, err := t.LockWebhook(a.ID, id)
	if err != nil {
		return nil, nil, err
	}
	return a, w, nil
}

// CreateWebhook implements Webhooks.
func (sv *Service) CreateWebhook(ctx context.Context, ref AppRef, url string, events []string) (*Webhook, error) {
	if err := CheckEventPatterns(events); err != nil {
		return nil, err
	}
	var out *Webhook
	err := sv.update(ctx, func(t Tx) error {
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		if err := holdWebhooks(t, a.OrgID, a.ID); err != nil {
			return err
		}
		n, err := t.CountWebhooks(a.ID)
		if err != nil {
			return err
		}
		if most := sv.MaxEndpoints(); n >= most {
			return Errorf(ECodeConflict, "the application has %d webhook endpoints, the most webhooks.max_endpoints allows: delete one or raise the setting", n)
		}
		now := t.Now()
		w := &Webhook{ID: NewID(), OrgID: a.OrgID, AppID: a.ID, URL: url, Events: events, Status: WebhookActive,
			Secret: NewWebhookSecret(), CreatedAt: now, UpdatedAt: now}
		if err := t.InsertWebhook(w); err != nil {
			return err
		}
		out = w
		return t.Audit(AuditEvent{Event: EventWebhookCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "webhook", ID: w.ID}, Metadata: map[string]any{"url": url, "events": events}})
	})
	return out, err
}

// UpdateWebhook implements Webhooks.
func (sv *Service) UpdateWebhook(ctx context.Context, ref AppRef, id string, u WebhookUpdate) (*Webhook, error) {
	if err := u.Check(); err != nil {
		return nil, err
	}
	var out *Webhook
	err := sv.update(ctx, func(t Tx) error {
		a, w, err := changeWebhook(t, ref, id)
		if err != nil {
			return err
		}
		meta := map[string]any{}
		if u.URL != nil && *u.URL != w.URL {
			w.URL, meta["url"] = *u.URL, *u.URL
		}
		if u.Events != nil {
			w.Events, meta["events"] = u.Events, u.Events
		}
		event := EventWebhookUpdated
		if u.Status != nil && *u.Status != w.Status {
			meta["status"] = *u.Status
			if *u.Status == WebhookDisabled {
				event = EventWebhookDisabled
				w.Status = WebhookDisabled
				err = t.PauseDeliveries(w.ID)
			} else {
				// Enabling restarts the failure run: its clock and its
				// timed-out mark.
				w.Status, w.FailingSince, w.TimedOut = WebhookActive, nil, false
				err = t.ResumeDeliveries(w.ID)
			}
			if err != nil {
				return err
			}
		}
		out = w
		if len(meta) == 0 {
			return nil
		}
		w.UpdatedAt = t.Now()
		if err := t.PutWebhook(w); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "webhook", ID: w.ID}, Metadata: meta})
	})
	return out, err
}

// DeleteWebhook implements Webhooks.
func (sv *Service) DeleteWebhook(ctx context.Context, ref AppRef, id string) error {
	return sv.update(ctx, func(t Tx) error {
		a, w, err := changeWebhook(t, ref, id)
		if err != nil {
			return err
		}
		if err := t.DeleteWebhook(w); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventWebhookDeleted, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "webhook", ID: w.ID}, Metadata: map[string]any{"url": w.URL}})
	})
}
