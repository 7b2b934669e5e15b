package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/pix"
	"licensectl/pix/pixtest"
	"licensectl/server/api"
	"licensectl/server/servertest"
	"licensectl/store"
)

// withPix configures a Pix account and the callback secret.
func withPix(c *config.Config) {
	c.Billing.Pix = config.Pix{Key: "pix@example.com", MerchantName: "Licensectl", MerchantCity: "RECIFE", CallbackSecret: "cb-secret"}
}

func enforce(c *config.Config) { c.Billing.Enforce = true }

func TestBillingPlans(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)

	t.Run("OK", func(t *testing.T) {
		r := s.As(t, org.APIKey, "GET", "/v1/mgmt/billing/plans", nil).Want(t, http.StatusOK)
		var raw struct {
			Plans []map[string]any `json:"plans"`
		}
		r.JSON(t, &raw)
		for _, p := range raw.Plans {
			servertest.WantKeys(t, p, "id", "key", "name", "price_cents", "max_applications", "max_licenses",
				"max_requests_per_month", "audit_log_retention_days", "max_dashboard_members")
		}
		var got api.BillingPlans
		r.JSON(t, &got)
		// docs/design.md §10, in its order.
		want := []api.BillingPlan{
			{Key: "free", Name: "Free", PriceCents: 0, MaxApplications: 1, MaxLicenses: 100, MaxRequestsPerMonth: 10_000, AuditLogRetentionDays: 7, MaxDashboardMembers: 2},
			{Key: "starter", Name: "Starter", PriceCents: 4900, MaxApplications: 3, MaxLicenses: 1_000, MaxRequestsPerMonth: 100_000, AuditLogRetentionDays: 30, MaxDashboardMembers: 5},
			{Key: "pro", Name: "Pro", PriceCents: 14900, MaxApplications: 10, MaxLicenses: 10_000, MaxRequestsPerMonth: 1_000_000, AuditLogRetentionDays: 90, MaxDashboardMembers: 20},
			{Key: "enterprise", Name: "Enterprise", PriceCents: 49900, MaxApplications: -1, MaxLicenses: -1, MaxRequestsPerMonth: -1, AuditLogRetentionDays: 365, MaxDashboardMembers: -1},
		}
		if len(got.Plans) != len(want) {
			t.Fatalf("plans = %+v", got.Plans)
		}
		for i, w := range want {
			w.ID = store.TierID(w.Key)
			if got.Plans[i] != w {
				t.Errorf("plan %d = %+v, want %+v", i, got.Plans[i], w)
			}
		}
		// Ids are stable: the same after a restart.
		cfg := s.Config
		s.Close()
		s2 := servertest.Start(t, cfg)
		var again api.BillingPlans
		s2.As(t, org.APIKey, "GET", "/v1/mgmt/billing/plans", nil).Want(t, http.StatusOK).JSON(t, &again)
		// The operator reads them without naming an organization.
		s2.As(t, s2.OperatorToken(), "GET", "/v1/mgmt/billing/plans", nil).Want(t, http.StatusOK)
		if again.Plans[1].ID != got.Plans[1].ID {
			t.Errorf("starter id %s after restart, was %s", again.Plans[1].ID, got.Plans[1].ID)
		}
	})

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		s := servertest.New(t)
		s.Do(t, "GET", "/v1/mgmt/billing/plans", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
	})
}

func TestBillingSubscription(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)

	t.Run("OK", func(t *testing.T) {
		var raw map[string]map[string]any
		r := s.As(t, org.APIKey, "GET", "/v1/mgmt/billing/subscription", nil).Want(t, http.StatusOK)
		r.JSON(t, &raw)
		servertest.WantKeys(t, raw["subscription"], "id", "status", "provider", "trial_ends_at", "current_period_start", "current_period_end", "plan")
		var got api.SubscriptionBody
		r.JSON(t, &got)
		o, err := s.Store().FindOrganization(t.Context(), org.ID)
		if err != nil {
			t.Fatal(err)
		}
		sub := got.Subscription
		if sub.Status != "active" || sub.Provider != "none" || sub.Plan.Key != "free" || sub.TrialEndsAt != nil ||
			sub.CurrentPeriodEnd != nil || !sub.CurrentPeriodStart.Equal(o.CreatedAt) || sub.ID == "" {
			t.Fatalf("subscription = %+v, organization created %s", sub, o.CreatedAt)
		}
		// The operator names the organization.
		var op api.SubscriptionBody
		s.As(t, s.OperatorToken(), "GET", "/v1/mgmt/billing/subscription", nil, "x-organization-id", org.ID).Want(t, http.StatusOK).JSON(t, &op)
		if op.Subscription.ID != sub.ID {
			t.Fatalf("operator read %+v, want %+v", op.Subscription, sub)
		}
	})
}

// usage reads the organization's usage.
func usage(t *testing.T, s *servertest.Server, key string) api.Usage {
	t.Helper()
	var u api.Usage
	s.As(t, key, "GET", "/v1/mgmt/billing/usage", nil).Want(t, http.StatusOK).JSON(t, &u)
	return u
}

func TestBillingUsage(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	s, key := f.s, f.org.APIKey

	t.Run("OK", func(t *testing.T) {
		var raw map[string]any
		s.As(t, key, "GET", "/v1/mgmt/billing/usage", nil).Want(t, http.StatusOK).JSON(t, &raw)
		servertest.WantKeys(t, raw, "period_start", "plan", "usage", "enforced")
		if raw["enforced"] != false {
			t.Errorf("enforced = %v, want false (billing.enforce defaults off)", raw["enforced"])
		}
		servertest.WantKeys(t, raw["plan"].(map[string]any), "key", "name", "status")
		servertest.WantKeys(t, raw["usage"].(map[string]any), "applications", "licenses_active", "runtime_requests")

		u := usage(t, s, key)
		if want := store.MonthStart(s.Clock().Now()); !u.PeriodStart.Equal(want) {
			t.Errorf("period_start = %s, want %s", u.PeriodStart, want)
		}
		if u.Plan != (api.UsagePlan{Key: "free", Name: "Free", Status: "active"}) {
			t.Errorf("plan = %+v", u.Plan)
		}
		want := api.UsageCounts{Applications: api.UsageCount{Current: 1, Limit: 1}, LicensesActive: api.UsageCount{Current: 0, Limit: 100},
			RuntimeRequests: api.UsageCount{Current: 0, Limit: 10_000}}
		if u.Usage != want {
			t.Fatalf("usage = %+v, want %+v", u.Usage, want)
		}
	})

	t.Run("OKCountsMove", func(t *testing.T) {
		keys := f.licenses(t, 3, planOpts{})
		if got := usage(t, s, key).Usage.LicensesActive.Current; got != 3 {
			t.Fatalf("licenses_active = %d after generating 3", got)
		}
		f.setStatus(t, "licenses", f.ids[keys[0]], "revoked")
		f.setStatus(t, "licenses", f.ids[keys[1]], "suspended") // suspended still counts
		if got := usage(t, s, key).Usage.LicensesActive.Current; got != 2 {
			t.Fatalf("licenses_active = %d after revoking 1 of 3", got)
		}
		// Runtime calls count at once, flushed or not; one with an unknown
		// application does not.
		for range 4 {
			f.do(t, "POST", "/applications/init", nil).Want(t, http.StatusOK)
		}
		s.Do(t, "POST", "/v1/runtime/applications/init", nil, "x-api-key", "pk_live_unknown").Want(t, http.StatusUnauthorized)
		if got := usage(t, s, key).Usage.RuntimeRequests.Current; got != 4 {
			t.Fatalf("runtime_requests = %d after 4 calls", got)
		}
		// A second application (enforcement off) counts; deleting it for good
		// takes it and its licenses off.
		other := newApp(t, s, key, "Second App")
		if got := usage(t, s, key).Usage.Applications.Current; got != 2 {
			t.Fatalf("applications = %d with two", got)
		}
		s.As(t, key, "DELETE", "/v1/mgmt/applications/"+other, nil).Want(t, http.StatusOK)
		if got := usage(t, s, key).Usage.Applications.Current; got != 2 {
			t.Fatalf("applications = %d after disabling one (still counted)", got)
		}
		s.As(t, key, "DELETE", "/v1/mgmt/applications/"+f.appID+"?permanent=true", nil).Want(t, http.StatusOK)
		u := usage(t, s, key)
		if u.Usage.Applications.Current != 1 || u.Usage.LicensesActive.Current != 0 {
			t.Fatalf("usage after a permanent delete = %+v", u.Usage)
		}
		// The runtime count survives a restart (flushed at close).
		cfg := s.Config
		s.Close()
		s2 := servertest.Start(t, cfg)
		if got := usage(t, s2, key).Usage.RuntimeRequests.Current; got != 4 {
			t.Fatalf("runtime_requests = %d after restart", got)
		}
	})
}

func TestBillingEnforcement(t *testing.T) {
	t.Parallel()
	t.Run("ErrPlanLimitReachedApplications", func(t *testing.T) {
		s := servertest.New(t, enforce)
		org := s.NewOrg(t)
		// Parallel creations for the one free slot: exactly one passes.
		var wg sync.WaitGroup
		status := make([]int, 6)
		for i := range status {
			wg.Go(func() {
				status[i] = s.As(t, org.APIKey, "POST", "/v1/mgmt/applications", map[string]any{"name": fmt.Sprintf("Racer %d", i)}).Status
			})
		}
		wg.Wait()
		if n := slices.Index(status, http.StatusCreated); n < 0 || slices.Index(status[n+1:], http.StatusCreated) >= 0 {
			t.Fatalf("statuses %v: want exactly one 201", status)
		}
		s.As(t, org.APIKey, "POST", "/v1/mgmt/applications", map[string]any{"name": "One Too Many"}).
			WantError(t, http.StatusForbidden, "plan_limit_reached")
		if got := usage(t, s, org.APIKey).Usage.Applications.Current; got != 1 {
			t.Fatalf("applications = %d after a refused creation", got)
		}
	})

	t.Run("ErrPlanLimitReachedMembers", func(t *testing.T) {
		s := servertest.New(t, enforce)
		org := s.NewOrg(t) // the owner is member 1 of 2
		add := func(email string) *servertest.Resp {
			return s.As(t, org.APIKey, "POST", "/v1/mgmt/organizations/members",
				map[string]any{"email": email, "password": servertest.Password, "role": "viewer"})
		}
		add("second@example.com").Want(t, http.StatusCreated)
		add("third@example.com").WantError(t, http.StatusForbidden, "plan_limit_reached")
	})

	t.Run("ErrPlanLimitReachedLicenses", func(t *testing.T) {
		f := newRT(t, enforce)
		plan := f.licenses(t, 99, planOpts{})
		planID := f.lic(t, plan[0]).Plan.ID
		gen := func(n int) *servertest.Resp {
			return f.mgmt(t, "POST", "/licenses", map[string]any{"plan_id": planID, "quantity": n})
		}
		// A generation that would cross the limit creates none.
		gen(2).WantError(t, http.StatusForbidden, "plan_limit_reached")
		if u := usage(t, f.s, f.org.APIKey); u.Usage.LicensesActive.Current != 99 || !u.Enforced {
			t.Fatalf("usage = %+v after a refused generation, want 99 licenses and enforced", u)
		}
		// Two parallel generations at the last free slot: exactly one passes.
		var wg sync.WaitGroup
		status := make([]int, 8)
		for i := range status {
			wg.Go(func() { status[i] = gen(1).Status })
		}
		wg.Wait()
		created := 0
		for _, st := range status {
			switch st {
			case http.StatusCreated:
				created++
			case http.StatusForbidden:
			default:
				t.Fatalf("status %d", st)
			}
		}
		if created != 1 {
			t.Fatalf("%d parallel generations passed at the last slot, want 1", created)
		}
		if got := usage(t, f.s, f.org.APIKey).Usage.LicensesActive.Current; got != 100 {
			t.Fatalf("licenses_active = %d, want 100", got)
		}
		// Revoking one frees a slot.
		f.setStatus(t, "licenses", f.ids[plan[0]], "revoked")
		gen(1).Want(t, http.StatusCreated)
	})

	t.Run("OKNotEnforced", func(t *testing.T) {
		s := servertest.New(t)
		org := s.NewOrg(t)
		newApp(t, s, org.APIKey, "First")
		newApp(t, s, org.APIKey, "Second")
		u := usage(t, s, org.APIKey)
		if u.Usage.Applications != (api.UsageCount{Current: 2, Limit: 1}) {
			t.Fatalf("applications = %+v: counted, not enforced", u.Usage.Applications)
		}
	})
}

func TestBillingMonthlyQuota(t *testing.T) {
	t.Parallel()
	f := newRT(t, enforce, func(c *config.Config) {
		c.Billing.Tiers = []config.Tier{{Key: "free", Name: "Free", MaxApplications: 1, MaxLicenses: 10, MaxRequestsPerMonth: 3,
			AuditLogRetentionDays: 7, MaxDashboardMembers: 2}}
	})
	// Ten seconds before the end of a month.
	end := time.Date(2031, time.March, 31, 23, 59, 50, 0, time.UTC)
	f.s.Clock().Set(end)

	t.Run("ErrMonthlyQuotaExceeded", func(t *testing.T) {
		for range 3 {
			f.do(t, "POST", "/applications/init", nil).Want(t, http.StatusOK)
		}
		r := f.do(t, "POST", "/applications/init", nil)
		r.WantError(t, http.StatusTooManyRequests, "monthly_quota_exceeded")
		if got := r.Header.Get("Retry-After"); got != "10" {
			t.Fatalf("Retry-After = %q, want 10 (seconds to April 1st)", got)
		}
		// Validate is refused too, so the client learns it is over quota.
		f.do(t, "POST", "/sessions/validate", map[string]any{"access_token": "x"}).
			WantError(t, http.StatusTooManyRequests, "monthly_quota_exceeded")
		// Refused calls are not counted.
		if got := usage(t, f.s, f.org.APIKey).Usage.RuntimeRequests; got != (api.UsageCount{Current: 3, Limit: 3}) {
			t.Fatalf("runtime_requests = %+v", got)
		}
	})

	t.Run("OKNextMonth", func(t *testing.T) {
		f.s.Clock().Set(end.Add(10 * time.Second))
		f.do(t, "POST", "/applications/init", nil).Want(t, http.StatusOK)
		if got := usage(t, f.s, f.org.APIKey).Usage.RuntimeRequests.Current; got != 1 {
			t.Fatalf("runtime_requests = %d in the new month", got)
		}
	})
}

// checkout starts a checkout of plan and returns its answer.
func checkout(t *testing.T, s *servertest.Server, key, plan string) api.Checkout {
	t.Helper()
	var c api.Checkout
	s.As(t, key, "POST", "/v1/mgmt/billing/checkout", map[string]any{"billing_plan_key": plan,
		"customer_phone": "+5581987654321", "customer_document": "111.444.777-35"}).Want(t, http.StatusCreated).JSON(t, &c)
	return c
}

func TestBillingCheckout(t *testing.T) {
	t.Parallel()
	t.Run("ErrUnavailable", func(t *testing.T) {
		s := servertest.New(t)
		org := s.NewOrg(t)
		r := s.As(t, org.APIKey, "POST", "/v1/mgmt/billing/checkout", map[string]any{"billing_plan_key": "starter",
			"customer_phone": "+5581987654321", "customer_document": "111.444.777-35"})
		r.WantError(t, http.StatusServiceUnavailable, "unavailable")
		if !strings.Contains(string(r.Body), "billing.pix.key") {
			t.Fatalf("message does not name billing.pix.key: %s", r.Body)
		}
	})

	s := servertest.New(t, withPix)
	org := s.NewOrg(t)

	t.Run("OK", func(t *testing.T) {
		var raw map[string]any
		s.As(t, org.APIKey, "POST", "/v1/mgmt/billing/checkout", map[string]any{"billing_plan_key": "starter",
			"customer_phone": "+5581987654321", "customer_document": "12.ABC.345/01DE-35"}).Want(t, http.StatusCreated).JSON(t, &raw)
		servertest.WantKeys(t, raw, "transaction_id", "qrcode", "copy_paste", "amount_cents")

		c := checkout(t, s, s.OwnerToken(t, org), "pro")
		if c.AmountCents != 14900 {
			t.Errorf("amount_cents = %d", c.AmountCents)
		}
		txid := strings.ToUpper(strings.ReplaceAll(c.TransactionID, "-", ""))[7:]
		want := "000201" + "26370014br.gov.bcb.pix0115pix@example.com" + "52040000" + "5303986" + "5406149.00" +
			"5802BR" + "5910Licensectl" + "6006RECIFE" + "6229" + "0525" + txid + "6304"
		if !strings.HasPrefix(c.CopyPaste, want) || len(c.CopyPaste) != len(want)+4 {
			t.Fatalf("copy_paste =\n%s\nwant\n%s<CRC>", c.CopyPaste, want)
		}
		if crc := c.CopyPaste[len(want):]; crc != fmt.Sprintf("%04X", pix.CRC16([]byte(want))) {
			t.Errorf("CRC %s does not match", crc)
		}
		if got := pixtest.DecodeQR(t, c.QRCode); got != c.CopyPaste {
			t.Errorf("QR holds %q, want copy_paste %q", got, c.CopyPaste)
		}
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		body := func(plan, phone, doc string) map[string]any {
			return map[string]any{"billing_plan_key": plan, "customer_phone": phone, "customer_document": doc}
		}
		for _, tc := range []struct {
			body  any
			field string
		}{
			{body("free", "+5581987654321", "11144477735"), "billing_plan_key"},
			{body("gold", "+5581987654321", "11144477735"), "billing_plan_key"},
			{body("", "+5581987654321", "11144477735"), "billing_plan_key"},
			{body("starter", "81987654321", "11144477735"), "customer_phone"},
			{body("starter", "+5581987654321", "111.444.777-36"), "customer_document"},
			{body("starter", "+5581987654321", "11.222.333/0001-82"), "customer_document"},
			{body("starter", "+5581987654321", "123"), "customer_document"},
			{map[string]any{"billing_plan_key": 7}, "billing_plan_key"},
		} {
			wantFieldError(t, s.As(t, org.APIKey, "POST", "/v1/mgmt/billing/checkout", tc.body), tc.field)
		}
	})

	t.Run("ErrForbidden", func(t *testing.T) {
		s.As(t, s.Member(t, org, "developer"), "POST", "/v1/mgmt/billing/checkout", map[string]any{"billing_plan_key": "starter"}).
			WantError(t, http.StatusForbidden, "forbidden")
	})
}
