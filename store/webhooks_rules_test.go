package store

import (
	"testing"
	"time"
)

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
			wantInvalid(t, err, tt.field)
		})
	}
}

func TestRetryPolicyAttempted(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := RetryPolicy{Schedule: []time.Duration{time.Minute, time.Hour}, DisableAfter: 5 * time.Hour}
	pending := func(n int) DeliveryState { return DeliveryState{Status: DeliveryPending, Attempts: n} }
	failing := EndpointHealth{FailingSince: ptrTime(t0.Add(-time.Hour))}
	for _, tt := range []struct {
		name       string
		d          DeliveryState
		h          EndpointHealth
		probe      bool
		a          Attempt
		status     string
		next       time.Duration // 0: none
		failing    bool          // the endpoint's failure clock runs after
		timedOut   bool
		disable    string
		doneAtTime bool
	}{
		{name: "OK/Delivered", d: pending(0), h: failing, a: Attempt{Status: 204, At: t0}, status: DeliveryDelivered, doneAtTime: true},
		{name: "OK/FirstFailureRetries", d: pending(0), a: Attempt{Status: 500, At: t0}, status: DeliveryPending, next: time.Minute, failing: true},
		{name: "OK/SecondFailureWaitsLonger", d: pending(1), a: Attempt{Status: 0, At: t0, TimedOut: true}, status: DeliveryPending, next: time.Hour, failing: true, timedOut: true},
		{name: "OK/ScheduleSpent", d: pending(2), a: Attempt{Status: 500, At: t0}, status: DeliveryFailed, failing: true, doneAtTime: true},
		{name: "OK/GoneDisables", d: pending(0), a: Attempt{Status: 410, At: t0}, status: DeliveryPending, next: time.Minute, failing: true, disable: DisableGone},
		{name: "OK/FailingTooLongDisables", d: pending(0), h: EndpointHealth{FailingSince: ptrTime(t0.Add(-5 * time.Hour))}, a: Attempt{Status: 500, At: t0},
			status: DeliveryPending, next: time.Minute, failing: true, disable: DisableFailing},
		{name: "OK/ProbeSaysNothingOfHealth", d: pending(0), h: failing, probe: true, a: Attempt{Status: 410, At: t0, TimedOut: true}, status: DeliveryFailed, failing: true, doneAtTime: true},
		{name: "OK/ProbeDelivered", d: pending(0), probe: true, a: Attempt{Status: 200, At: t0}, status: DeliveryDelivered, doneAtTime: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, h, disable := p.Attempted(tt.d, tt.h, tt.probe, tt.a)
			if d.Status != tt.status || d.Attempts != tt.d.Attempts+1 || disable != tt.disable {
				t.Fatalf("state %+v, disable %q", d, disable)
			}
			if (tt.next == 0) != (d.NextAttemptAt == nil) || (tt.next != 0 && !d.NextAttemptAt.Equal(t0.Add(tt.next))) {
				t.Fatalf("next attempt %v, want %v after", d.NextAttemptAt, tt.next)
			}
			if tt.doneAtTime != (d.DoneAt != nil) || (h.FailingSince != nil) != tt.failing || h.TimedOut != tt.timedOut {
				t.Fatalf("done %v, health %+v", d.DoneAt, h)
			}
		})
	}
}

func ptrTime(t time.Time) *time.Time { return &t }
