package main

import (
	"strings"
	"testing"

	"licensectl/config"
	"licensectl/pix/pixtest"
	"licensectl/server/api"
	"licensectl/server/servertest"
)

// billingScenario reads plans, subscription and usage, checks out the
// starter plan and confirms the payment through c (operator rights).
func billingScenario(t *testing.T, c *cli) {
	var plans api.BillingPlans
	c.json(&plans, "billing", "plans")
	if len(plans.Plans) != 4 || plans.Plans[1].Key != "starter" || plans.Plans[1].PriceCents != 4900 {
		t.Fatalf("billing plans = %+v", plans)
	}
	if out := c.ok("billing", "plans"); !strings.Contains(out, "R$ 49.00") || !strings.Contains(out, "unlimited") {
		t.Fatalf("billing plans table:\n%s", out)
	}
	var sub api.SubscriptionBody
	c.json(&sub, "billing", "subscription")
	if sub.Subscription.Plan.Key != "free" || sub.Subscription.Provider != "none" {
		t.Fatalf("billing subscription = %+v", sub)
	}
	var u api.Usage
	c.json(&u, "billing", "usage")
	if u.Plan.Key != "free" || u.Usage.Applications.Limit != 1 || u.Usage.RuntimeRequests.Limit != 10_000 {
		t.Fatalf("billing usage = %+v", u)
	}

	c.fails(1, args("billing", "checkout", "free", "--phone", "+5581987654321", "--document", "111.444.777-35"), "Error: validation_failed: ", "billing_plan_key")
	c.fails(1, args("billing", "checkout", "starter", "--phone", "+5581987654321", "--document", "111.444.777-36"), "customer_document")
	var co api.Checkout
	c.json(&co, "billing", "checkout", "starter", "--phone", "+5581987654321", "--document", "111.444.777-35")
	if co.AmountCents != 4900 || !strings.HasPrefix(co.CopyPaste, "000201") || pixtest.DecodeQR(t, co.QRCode) != co.CopyPaste {
		t.Fatalf("billing checkout = %+v", co)
	}
	// Not a terminal: the code is printed, the QR code is not drawn.
	out := c.ok("billing", "checkout", "pro", "--phone", "+5581987654321", "--document", "11.222.333/0001-81")
	if !strings.Contains(out, "Copy-paste:") || !strings.Contains(out, "R$ 149.00") || strings.Contains(out, "█") {
		t.Fatalf("billing checkout table:\n%s", out)
	}

	c.json(&sub, "billing", "confirm", co.TransactionID)
	if sub.Subscription.Plan.Key != "starter" || sub.Subscription.Provider != "pix" || sub.Subscription.CurrentPeriodEnd == nil {
		t.Fatalf("billing confirm = %+v", sub)
	}
	c.json(&u, "billing", "usage")
	if u.Plan.Key != "starter" || u.Usage.Applications.Limit != 3 {
		t.Fatalf("billing usage after paying = %+v", u)
	}
	c.fails(1, args("billing", "confirm", "01970000-0000-7000-8000-000000000000"), "Error: not_found: ")
}

func TestLocalBilling(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	c.ok("org", "create", "Acme")
	c.fails(1, args("billing", "checkout", "starter", "--phone", "+5581987654321", "--document", "111.444.777-35"),
		"Error: unavailable: ", "billing.pix.key")
	c.env = []string{"LICENSECTL_BILLING_PIX_KEY=pix@acme.test", "LICENSECTL_BILLING_PIX_MERCHANT_NAME=Acme", "LICENSECTL_BILLING_PIX_MERCHANT_CITY=RECIFE"}
	billingScenario(t, c)
}

func TestRemoteBilling(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t, func(c *config.Config) {
		c.Billing.Pix = config.Pix{Key: "pix@acme.test", MerchantName: "Acme", MerchantCity: "RECIFE"}
	})
	org := srv.NewOrg(t)
	billingScenario(t, newRemote(t, srv.URL, srv.OperatorToken(), "--org", org.ID))
	// An organization's API key checks out but may not confirm.
	key := newRemote(t, srv.URL, org.APIKey)
	var co api.Checkout
	key.json(&co, "billing", "checkout", "pro", "--phone", "+5581987654321", "--document", "111.444.777-35")
	key.fails(1, args("billing", "confirm", co.TransactionID), "Error: forbidden: ")
	var plans api.BillingPlans
	newRemote(t, srv.URL, srv.OperatorToken()).json(&plans, "billing", "plans")
}
