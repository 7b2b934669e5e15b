package storetest

import (
	"slices"
	"testing"

	"licensectl/store"
)

// testWebhooks: endpoints come and go, events queue deliveries that can be
// listed and retried. The URL needs no network: implementations that check
// it are opened with private http targets allowed.
func testWebhooks(t *testing.T, open Opener) {
	f := newFixture(t, open)
	const url = "http://127.0.0.1:9/conformance"
	hook, err := f.db.CreateWebhook(f.ctx, f.ref(), url, []string{"license.*"})
	if err != nil || hook.Status != store.WebhookActive || hook.Secret == "" || hook.URL != url {
		t.Fatalf("CreateWebhook = %+v, %v", hook, err)
	}
	t.Run("ErrValidationFailed", func(t *testing.T) {
		_, err := f.db.CreateWebhook(f.ctx, f.ref(), url, []string{"no.such_event"})
		wantCode(t, "CreateWebhook(unknown event)", err, store.ECodeValidation)
		_, err = f.db.UpdateWebhook(f.ctx, f.ref(), hook.ID, store.WebhookUpdate{Status: ptr("sleeping")})
		wantCode(t, "UpdateWebhook(bad status)", err, store.ECodeValidation)
		_, err = f.db.ListDeliveries(f.ctx, f.ref(), hook.ID, store.DeliveryFilter{Status: "lost"})
		wantCode(t, "ListDeliveries(bad status)", err, store.ECodeValidation)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := f.db.CreateWebhook(f.ctx, store.AppRef{OrgID: f.org.ID, AppID: store.NewID()}, url, []string{"license.*"})
		wantCode(t, "CreateWebhook(unknown application)", err, store.ECodeNotFound)
		_, err = f.db.UpdateWebhook(f.ctx, f.ref(), store.NewID(), store.WebhookUpdate{Status: ptr(store.WebhookDisabled)})
		wantCode(t, "UpdateWebhook(unknown)", err, store.ECodeNotFound)
		_, err = f.db.ListDeliveries(f.ctx, f.ref(), store.NewID(), store.DeliveryFilter{})
		wantCode(t, "ListDeliveries(unknown webhook)", err, store.ECodeNotFound)
		wantCode(t, "RetryDelivery(unknown)", f.db.RetryDelivery(f.ctx, f.ref(), hook.ID, store.NewID()), store.ECodeNotFound)
	})
	t.Run("OKDeliveries", func(t *testing.T) {
		f.licenses(t, store.PlanInput{Name: ptr("Hooked")}, 2)
		expandAll(t, f)
		p, err := f.db.ListDeliveries(f.ctx, f.ref(), hook.ID, store.DeliveryFilter{})
		if err != nil || p.Total != 2 || p.Data[0].Event != store.EventLicenseCreated || p.Data[0].WebhookID != hook.ID {
			t.Fatalf("ListDeliveries = %+v, %v; want the two license.created", p, err)
		}
		if err := f.db.RetryDelivery(f.ctx, f.ref(), hook.ID, p.Data[0].ID); err != nil {
			t.Fatalf("RetryDelivery: %v", err)
		}
	})
	t.Run("OKUpdateAndDelete", func(t *testing.T) {
		up, err := f.db.UpdateWebhook(f.ctx, f.ref(), hook.ID, store.WebhookUpdate{Events: []string{store.EventUserBanned}, Status: ptr(store.WebhookDisabled)})
		if err != nil || up.Status != store.WebhookDisabled || !slices.Equal(up.Events, []string{store.EventUserBanned}) || up.URL != url {
			t.Fatalf("UpdateWebhook = %+v, %v", up, err)
		}
		list, err := f.db.ListWebhooks(f.ctx, f.ref())
		if err != nil || len(list) != 1 || list[0].Status != store.WebhookDisabled {
			t.Fatalf("ListWebhooks = %+v, %v", list, err)
		}
		if err := f.db.DeleteWebhook(f.ctx, f.ref(), hook.ID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "DeleteWebhook(again)", f.db.DeleteWebhook(f.ctx, f.ref(), hook.ID), store.ECodeNotFound)
		list, err = f.db.ListWebhooks(f.ctx, f.ref())
		if err != nil || len(list) != 0 {
			t.Fatalf("ListWebhooks after delete = %+v, %v", list, err)
		}
	})
}

// expandAll expands every outbox event into its deliveries.
func expandAll(t *testing.T, f *fixture) {
	t.Helper()
	for {
		n, err := f.be.ExpandEvents(f.ctx, 100)
		if err != nil {
			t.Fatalf("ExpandEvents: %v", err)
		}
		if n == 0 {
			return
		}
	}
}
