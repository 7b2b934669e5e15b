package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"licensectl/server/api"
	"licensectl/store"
)

// tierReader lets through every management credential that may read
// billing, the operator without naming an organization: the tiers are the
// server's, not an organization's.
func (s *Server) tierReader(fn handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.authenticate(r)
		if err != nil {
			return err
		}
		if !readsBilling(p) {
			return store.Errorf(store.ECodeForbidden, "this credential may not read billing")
		}
		if err := s.limitMgmt(w, p); err != nil {
			return err
		}
		return fn(w, r)
	}
}

func (s *Server) billingPlans(w http.ResponseWriter, r *http.Request) error {
	tiers, err := s.db.BillingPlans(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.BillingPlans{Plans: mapList(tiers, api.BillingPlanOf)})
	return nil
}

func (s *Server) billingSubscription(w http.ResponseWriter, r *http.Request) error {
	sub, err := s.db.BillingSubscription(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.SubscriptionBody{Subscription: api.SubscriptionOf(sub)})
	return nil
}

// billingUsage reads the counts from the store, every server's flushed
// runtime requests among them, and adds this server's not flushed yet.
func (s *Server) billingUsage(w http.ResponseWriter, r *http.Request) error {
	org, now := principalFrom(r.Context()).OrgID, s.now()
	u, err := s.db.BillingUsage(r.Context(), org, now)
	if err != nil {
		return err
	}
	u.RuntimeRequests.Current += s.rt.usage.unflushed(org, now)
	writeJSON(w, http.StatusOK, api.UsageOf(u))
	return nil
}

func (s *Server) billingCheckout(w http.ResponseWriter, r *http.Request) error {
	var req api.CheckoutRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	c, err := s.db.BillingCheckout(r.Context(), store.CheckoutInput{OrgID: principalFrom(r.Context()).OrgID,
		PlanKey: req.BillingPlanKey, CustomerPhone: req.CustomerPhone, CustomerDocument: req.CustomerDocument})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.Checkout{TransactionID: c.TransactionID, QRCode: c.QRCode, CopyPaste: c.CopyPaste, AmountCents: c.AmountCents})
	return nil
}

func (s *Server) billingConfirm(w http.ResponseWriter, r *http.Request) error {
	sub, err := s.db.ConfirmBillingTransaction(r.Context(), mux.Vars(r)["id"])
	return s.paid(w, sub, err)
}

// paid answers the subscription a confirmed payment put in force; the
// runtime quota of the organization is read again.
func (s *Server) paid(w http.ResponseWriter, sub *store.Subscription, err error) error {
	if err != nil {
		return err
	}
	s.rt.usage.planChanged(sub.OrgID)
	writeJSON(w, http.StatusOK, api.SubscriptionBody{Subscription: api.SubscriptionOf(sub)})
	return nil
}

// pixCallback is the payment provider's notice that a transaction was paid,
// signed with billing.pix.callback_secret. The signature is checked before
// the body is read as JSON, so a forged body changes nothing.
func (s *Server) pixCallback(w http.ResponseWriter, r *http.Request) error {
	secret := s.cfg.Billing.Pix.CallbackSecret
	if secret == "" {
		return store.Errorf(store.ECodeUnavailable, "payment callbacks are not configured: the operator must set billing.pix.callback_secret")
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if !validSignature(secret, body, r.Header.Get("x-signature")) {
		return store.Errorf(store.ECodeUnauthenticated, "missing or wrong x-signature")
	}
	var cb api.PixCallback
	if err := decodeBytes(body, &cb); err != nil {
		return err
	}
	if cb.Status != store.TransactionPaid {
		return store.Invalid("status", `status must be "paid"`)
	}
	if err := requireString("transaction_id", cb.TransactionID); err != nil {
		return err
	}
	ctx := store.WithActor(r.Context(), store.Actor{Type: store.ActorSystem, ID: "pix", IP: clientIP(r), UserAgent: r.UserAgent()})
	if cb.AmountCents == nil {
		sub, err := s.db.ConfirmBillingTransaction(ctx, cb.TransactionID)
		return s.paid(w, sub, err)
	}
	sub, err := s.db.ConfirmBillingPayment(ctx, cb.TransactionID, *cb.AmountCents)
	return s.paid(w, sub, err)
}

// validSignature checks header, "sha256=<hex HMAC-SHA256 of body>", in
// constant time.
func validSignature(secret string, body []byte, header string) bool {
	hexSig, ok := strings.CutPrefix(strings.TrimSpace(header), "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}
