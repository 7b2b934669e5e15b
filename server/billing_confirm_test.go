package server_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"licensectl/server/api"
	"licensectl/server/servertest"
	"licensectl/store"
)

// subscription reads the organization's subscription.
func subscription(t *testing.T, s *servertest.Server, key string) api.Subscription {
	t.Helper()
	var b api.SubscriptionBody
	s.As(t, key, "GET", "/v1/mgmt/billing/subscription", nil).Want(t, http.StatusOK).JSON(t, &b)
	return b.Subscription
}

func confirm(t *testing.T, s *servertest.Server, cred, id string) *servertest.Resp {
	t.Helper()
	return s.As(t, cred, "POST", "/v1/admin/billing/transactions/"+id+"/confirm", nil)
}

func TestBillingConfirm(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, withPix, enforce)
	org := s.NewOrg(t)
	op := s.OperatorToken()

	t.Run("OK", func(t *testing.T) {
		c := checkout(t, s, org.APIKey, "starter")
		paidAt := s.Clock().Now()
		var b api.SubscriptionBody
		confirm(t, s, op, c.TransactionID).Want(t, http.StatusOK).JSON(t, &b)
		sub := b.Subscription
		end := paidAt.Add(30 * 24 * time.Hour)
		if sub.Status != "active" || sub.Provider != "pix" || sub.Plan.Key != "starter" || !sub.CurrentPeriodStart.Equal(paidAt) ||
			sub.CurrentPeriodEnd == nil || !sub.CurrentPeriodEnd.Equal(end) {
			t.Fatalf("subscription = %+v, want starter until %s", sub, end)
		}
		// Idempotent: confirming again changes nothing.
		s.Clock().Advance(time.Minute)
		var again api.SubscriptionBody
		confirm(t, s, op, c.TransactionID).Want(t, http.StatusOK).JSON(t, &again)
		if !again.Subscription.CurrentPeriodEnd.Equal(end) {
			t.Fatalf("second confirm moved the period end to %s", again.Subscription.CurrentPeriodEnd)
		}
		// Limits follow the tier in force: a second application now fits.
		newApp(t, s, org.APIKey, "First")
		newApp(t, s, org.APIKey, "Second")
		if u := usage(t, s, org.APIKey); u.Plan.Key != "starter" || u.Usage.Applications.Limit != 3 {
			t.Fatalf("usage = %+v", u)
		}
		// The same tier during the paid period extends it by 30 days.
		c2 := checkout(t, s, org.APIKey, "starter")
		confirm(t, s, op, c2.TransactionID).Want(t, http.StatusOK).JSON(t, &b)
		if want := end.Add(30 * 24 * time.Hour); !b.Subscription.CurrentPeriodEnd.Equal(want) || !b.Subscription.CurrentPeriodStart.Equal(paidAt) {
			t.Fatalf("renewal = %+v, want end %s", b.Subscription, want)
		}
		// Another tier starts a new period from the payment.
		c3 := checkout(t, s, org.APIKey, "pro")
		now := s.Clock().Now()
		confirm(t, s, op, c3.TransactionID).Want(t, http.StatusOK).JSON(t, &b)
		if b.Subscription.Plan.Key != "pro" || !b.Subscription.CurrentPeriodStart.Equal(now) {
			t.Fatalf("upgrade = %+v", b.Subscription)
		}
	})

	t.Run("ErrForbidden", func(t *testing.T) {
		c := checkout(t, s, org.APIKey, "starter")
		confirm(t, s, org.APIKey, c.TransactionID).WantError(t, http.StatusForbidden, "forbidden")
		confirm(t, s, s.OwnerToken(t, org), c.TransactionID).WantError(t, http.StatusForbidden, "forbidden")
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		confirm(t, s, op, store.NewID()).WantError(t, http.StatusNotFound, "not_found")
		confirm(t, s, op, "nope").WantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("ErrInvalidTransition", func(t *testing.T) {
		c := checkout(t, s, org.APIKey, "starter")
		s.Clock().Advance(time.Hour)
		before := subscription(t, s, org.APIKey)
		confirm(t, s, op, c.TransactionID).WantError(t, http.StatusConflict, "invalid_transition")
		if after := subscription(t, s, org.APIKey); after.Plan.Key != before.Plan.Key || !after.CurrentPeriodEnd.Equal(*before.CurrentPeriodEnd) {
			t.Fatalf("an expired confirmation changed the subscription: %+v", after)
		}
	})
}

func sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func TestPixCallback(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, withPix)
	org := s.NewOrg(t)
	c := checkout(t, s, org.APIKey, "pro")
	body, _ := json.Marshal(map[string]any{"transaction_id": c.TransactionID, "status": "paid"})
	callback := func(body []byte, hdr ...string) *servertest.Resp {
		return s.Do(t, "POST", "/v1/billing/pix/callback", body, hdr...)
	}

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		callback(body).WantError(t, http.StatusUnauthorized, "unauthenticated")
		callback(body, "x-signature", sign("wrong-secret", body)).WantError(t, http.StatusUnauthorized, "unauthenticated")
		callback(body, "x-signature", sign("cb-secret", body)[7:]).WantError(t, http.StatusUnauthorized, "unauthenticated")
		callback(body, "x-signature", "sha256=zz").WantError(t, http.StatusUnauthorized, "unauthenticated")
		// A signature of another body does not carry over.
		other, _ := json.Marshal(map[string]any{"transaction_id": store.NewID(), "status": "paid"})
		callback(body, "x-signature", sign("cb-secret", other)).WantError(t, http.StatusUnauthorized, "unauthenticated")
		if sub := subscription(t, s, org.APIKey); sub.Plan.Key != "free" || sub.Provider != "none" {
			t.Fatalf("a refused callback changed the subscription: %+v", sub)
		}
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		b, _ := json.Marshal(map[string]any{"transaction_id": c.TransactionID, "status": "refunded"})
		wantFieldError(t, callback(b, "x-signature", sign("cb-secret", b)), "status")
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		b, _ := json.Marshal(map[string]any{"transaction_id": store.NewID(), "status": "paid"})
		callback(b, "x-signature", sign("cb-secret", b)).WantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("OK", func(t *testing.T) {
		var first, second api.SubscriptionBody
		callback(body, "x-signature", sign("cb-secret", body)).Want(t, http.StatusOK).JSON(t, &first)
		if first.Subscription.Plan.Key != "pro" || first.Subscription.Provider != "pix" {
			t.Fatalf("subscription = %+v", first.Subscription)
		}
		s.Clock().Advance(time.Minute)
		callback(body, "x-signature", sign("cb-secret", body)).Want(t, http.StatusOK).JSON(t, &second)
		if !second.Subscription.CurrentPeriodEnd.Equal(*first.Subscription.CurrentPeriodEnd) {
			t.Fatalf("a repeated callback moved the period: %+v", second.Subscription)
		}
	})

	t.Run("ErrUnavailable", func(t *testing.T) {
		s := servertest.New(t)
		r := s.Do(t, "POST", "/v1/billing/pix/callback", body, "x-signature", sign("", body))
		r.WantError(t, http.StatusServiceUnavailable, "unavailable")
	})
}
