package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"licensectl/server/api"
	"licensectl/server/servertest"
)

// Issue 19 #8, docs/design.md §10: a Pix callback whose amount_cents differs from
// the transaction's is 400 validation_failed naming the field, and nothing
// changes; the right amount (or none) confirms.
func TestPixCallbackAmount(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, withPix)
	org := s.NewOrg(t)
	c := checkout(t, s, org.APIKey, "pro")
	callback := func(fields map[string]any) *servertest.Resp {
		t.Helper()
		fields["transaction_id"], fields["status"] = c.TransactionID, "paid"
		b, _ := json.Marshal(fields)
		return s.Do(t, "POST", "/v1/billing/pix/callback", b, "x-signature", sign("cb-secret", b))
	}
	audit := func() int {
		t.Helper()
		var page struct {
			Total int `json:"total"`
		}
		s.As(t, org.APIKey, "GET", "/v1/mgmt/audit-logs?event=billing.paid", nil).Want(t, http.StatusOK).JSON(t, &page)
		return page.Total
	}
	wantUnchanged := func(plan string, paidEvents int) {
		t.Helper()
		if sub := subscription(t, s, org.APIKey); sub.Plan.Key != plan {
			t.Fatalf("subscription = %+v, want plan %s", sub, plan)
		}
		if n := audit(); n != paidEvents {
			t.Fatalf("%d billing.paid entries, want %d", n, paidEvents)
		}
	}

	for name, amount := range map[string]int64{"Partial": c.AmountCents - 100, "Zero": 0, "More": c.AmountCents + 1, "Negative": -c.AmountCents} {
		t.Run("ErrValidationFailed/"+name, func(t *testing.T) {
			wantFieldError(t, callback(map[string]any{"amount_cents": amount}), "amount_cents")
			wantUnchanged("free", 0)
		})
	}
	t.Run("ErrValidationFailed/WrongType", func(t *testing.T) {
		wantFieldError(t, callback(map[string]any{"amount_cents": "14900"}), "amount_cents")
		wantUnchanged("free", 0)
	})
	t.Run("OK/SameAmount", func(t *testing.T) {
		var b api.SubscriptionBody
		callback(map[string]any{"amount_cents": c.AmountCents}).Want(t, http.StatusOK).JSON(t, &b)
		if b.Subscription.Plan.Key != "pro" {
			t.Fatalf("subscription = %+v", b.Subscription)
		}
		wantUnchanged("pro", 1)
	})
	t.Run("ErrValidationFailed/PaidTransactionOtherAmount", func(t *testing.T) {
		wantFieldError(t, callback(map[string]any{"amount_cents": 1}), "amount_cents")
		wantUnchanged("pro", 1)
	})
	t.Run("OK/RepeatWithoutAmount", func(t *testing.T) {
		callback(map[string]any{}).Want(t, http.StatusOK)
		wantUnchanged("pro", 1)
	})
}
