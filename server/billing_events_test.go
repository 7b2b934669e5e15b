package server_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"licensectl/server/servertest"
)

// TestBillingEvents: a checkout and its payment reach a subscriber of
// billing.* as signed webhooks and the organization's audit log.
func TestBillingEvents(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, withPix, local)
	f := attachRT(t, s)
	rc := newReceiver(t)
	register(t, f, rc, "billing.*")
	c := checkout(t, s, f.org.APIKey, "starter")
	confirm(t, s, s.OperatorToken(), c.TransactionID).Want(t, http.StatusOK)

	var got []string
	for len(got) < 2 {
		select {
		case d := <-rc.arrive:
			got = append(got, d.Type)
			if d.Type == "billing.paid" && d.Data == nil {
				t.Fatalf("billing.paid without data: %v", d.Raw)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("deliveries so far: %v", got)
		}
	}
	// Two sends may be in flight to one endpoint at once, and deliveries
	// carry no ordering promise (docs/design.md §9): both arrive, in either order.
	slices.Sort(got)
	if !slices.Equal(got, []string{"billing.checkout_created", "billing.paid"}) {
		t.Fatalf("deliveries = %v, want billing.checkout_created and billing.paid", got)
	}
	for _, event := range []string{"billing.checkout_created", "billing.paid"} {
		var p page
		s.As(t, f.org.APIKey, "GET", "/v1/mgmt/audit-logs?event="+event, nil).Want(t, http.StatusOK).JSON(t, &p)
		if p.Total != 1 || p.Data[0]["event"] != event {
			t.Fatalf("audit-logs?event=%s = %+v", event, p)
		}
	}
}
