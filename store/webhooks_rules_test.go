package store

import "testing"

func TestWebhookAndPaymentChecks(t *testing.T) {
	disabled, gone := WebhookDisabled, "gone"
	for _, tt := range []struct {
		name  string
		check func() error
		field string
	}{
		{"OK/DeliveryFilter", (&DeliveryFilter{Status: DeliveryFailed}).Check, ""},
		{"OK/DeliveryFilterEmpty", (&DeliveryFilter{}).Check, ""},
		{"ErrValidation/DeliveryStatus", (&DeliveryFilter{Status: "sent"}).Check, "status"},
		{"ErrValidation/DeliveryPage", (&DeliveryFilter{PageRequest: PageRequest{Page: -1}}).Check, "page"},
		{"OK/WebhookUpdate", WebhookUpdate{Status: &disabled, Events: []string{"license.*"}}.Check, ""},
		{"OK/WebhookUpdateEmpty", WebhookUpdate{}.Check, ""},
		{"ErrValidation/WebhookStatus", WebhookUpdate{Status: &gone}.Check, "status"},
		{"ErrValidation/WebhookEvents", WebhookUpdate{Events: []string{}}.Check, "events"},
		{"OK/PaymentAmount", func() error { return CheckPaymentAmount(4900, 4900) }, ""},
		{"ErrValidation/PaymentPartial", func() error { return CheckPaymentAmount(4899, 4900) }, "amount_cents"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check()
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if e := AsError(err); e == nil || e.Code != ECodeValidation || e.Field != tt.field {
				t.Fatalf("got %v, want validation_failed naming %s", err, tt.field)
			}
		})
	}
}
