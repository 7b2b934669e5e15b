package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// errHoldWebhooksFirst: the attempt disables its endpoint, and a change
// that decides who hears an event holds the organization's endpoints
// before it locks one; the attempt is recorded again that way.
var errHoldWebhooksFirst = errors.New("store: the attempt disables its endpoint")

// RetryDelivery implements Webhooks.
func (sv *Service) RetryDelivery(ctx context.Context, ref AppRef, webhookID, deliveryID string) error {
	return sv.update(ctx, func(t Tx) error {
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		// Held: an endpoint being disabled or enabled meanwhile decides
		// whether the delivery is queued, after or before this.
		w, err := t.LockWebhook(a.ID, webhookID)
		if err != nil {
			return err
		}
		d, err := t.LockDelivery(w.ID, deliveryID)
		if err != nil {
			return err
		}
		next, now := *d, t.Now()
		next.Status, next.NextAttemptAt, next.DoneAt = DeliveryPending, &now, nil
		// A disabled endpoint's delivery waits for it to be enabled again.
		return t.PutDelivery(d, &next, w.Status == WebhookActive)
	})
}

// RecordAttempt implements Outbox. Whoever holds the lease now (the claim
// may have run out and been taken over by another server), the attempt is
// recorded and the lease ends: delivery is at least once, and the
// webhook-id stays.
func (sv *Service) RecordAttempt(ctx context.Context, deliveryID string, a Attempt, p RetryPolicy) error {
	err := sv.update(ctx, func(t Tx) error { return recordAttempt(t, deliveryID, a, p, false) })
	if errors.Is(err, errHoldWebhooksFirst) {
		err = sv.update(ctx, func(t Tx) error { return recordAttempt(t, deliveryID, a, p, true) })
	}
	return err
}

// recordAttempt is RecordAttempt in t; hold: the organization's endpoints
// held first, as disabling one needs.
func recordAttempt(t Tx, deliveryID string, a Attempt, p RetryPolicy, hold bool) error {
	if hold {
		d, err := t.Delivery(deliveryID)
		if err != nil {
			return err
		}
		if d == nil {
			return t.EndLease(deliveryID)
		}
		if err := holdWebhooks(t, d.OrgID, d.AppID); err != nil {
			return err
		}
	}
	d, w, err := t.LockAttempted(deliveryID)
	if err != nil {
		return err
	}
	if d == nil {
		return t.EndLease(deliveryID)
	}
	st, h, disable := p.Attempted(DeliveryState{Status: d.Status, Attempts: d.Attempts, NextAttemptAt: d.NextAttemptAt, DoneAt: d.DoneAt},
		EndpointHealth{FailingSince: w.FailingSince, TimedOut: w.TimedOut}, d.Event == EventWebhookTest, a)
	disabling := w.Status == WebhookActive && disable != ""
	if disabling && !hold {
		return errHoldWebhooksFirst
	}
	next, at := *d, a.At
	next.Status, next.Attempts, next.NextAttemptAt, next.DoneAt = st.Status, st.Attempts, st.NextAttemptAt, st.DoneAt
	next.ResponseStatus, next.LastError, next.LastLatency, next.LastAttemptAt = a.Status, a.Error, a.Latency, &at
	queued := st.Status == DeliveryPending && w.Status == WebhookActive && !disabling
	if err := t.PutDelivery(d, &next, queued); err != nil {
		return err
	}
	if err := t.EndLease(d.ID); err != nil {
		return err
	}
	healthChanged := w.TimedOut != h.TimedOut || (w.FailingSince == nil) != (h.FailingSince == nil)
	w.FailingSince, w.TimedOut = h.FailingSince, h.TimedOut
	if !disabling {
		if healthChanged {
			return t.PutWebhook(w)
		}
		return nil
	}
	w.Status, w.UpdatedAt = WebhookDisabled, t.Now()
	if err := t.PauseDeliveries(w.ID); err != nil {
		return err
	}
	if err := t.PutWebhook(w); err != nil {
		return err
	}
	var envs []string
	if app, err := t.Application(w.AppID); err == nil {
		envs = app.EnvIDs()
	} else if ErrorCode(err) != ECodeNotFound {
		return err
	}
	return t.Audit(AuditEvent{Event: EventWebhookDisabled, OrgID: w.OrgID, AppID: w.AppID, EnvIDs: envs,
		Target: Target{Type: "webhook", ID: w.ID}, Metadata: map[string]any{"reason": disable, "response_status": a.Status}})
}

// TestDelivery implements Outbox.
func (sv *Service) TestDelivery(ctx context.Context, ref AppRef, webhookID string, now time.Time, c Claim) (*DeliveryJob, error) {
	if err := CheckStorable("owner", c.Owner); err != nil {
		return nil, err
	}
	if pc, ok := sv.storage.(PingPrecheck); ok {
		if err := pc.PingRoom(ctx, ref, webhookID, now, c); err != nil {
			return nil, err
		}
	}
	var out *DeliveryJob
	err := sv.update(ctx, func(t Tx) error {
		w, err := t.LockWebhook(ref.AppID, webhookID)
		if err != nil {
			return err
		}
		if w.OrgID != ref.OrgID {
			return NotFound("webhook")
		}
		at := t.Now()
		body, err := json.Marshal(EventPayload{Type: EventWebhookTest, Timestamp: at.UTC(),
			Data: EventData{ApplicationID: &w.AppID, Extra: map[string]any{"webhook_id": w.ID}}})
		if err != nil {
			return err
		}
		d := &Delivery{ID: NewID(), OrgID: w.OrgID, AppID: w.AppID, WebhookID: w.ID, Event: EventWebhookTest,
			Status: DeliveryPending, NextAttemptAt: &at, CreatedAt: at, Body: body}
		if err := t.InsertPing(w, d, now, c); err != nil {
			return err
		}
		out = &DeliveryJob{Delivery: d, URL: w.URL, Secret: w.Secret}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
