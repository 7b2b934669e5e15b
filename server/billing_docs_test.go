package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"licensectl/config"
	"licensectl/server/api"
	"licensectl/server/servertest"
)

// pixDocExample is the worked callback example of docs/billing.md.
type pixDocExample struct {
	secret, body, signature string
	txID, txid              string // the txid derivation example
}

func readPixDocExample(t *testing.T) pixDocExample {
	t.Helper()
	raw, err := os.ReadFile("../docs/billing.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	find := func(what, re string) []string {
		m := regexp.MustCompile(re).FindStringSubmatch(doc)
		if m == nil {
			t.Fatalf("docs/billing.md has no %s (%s)", what, re)
		}
		return m
	}
	ex := pixDocExample{
		secret:    find("secret", `(?m)^SECRET=(\S+)$`)[1],
		body:      find("body", `(?m)^BODY='([^']+)'$`)[1],
		signature: find("signature", `(?m)^\s+x-signature: (sha256=[0-9a-f]{64})$`)[1],
	}
	m := find("txid example", "(?m)^\\| `([0-9a-f-]{36})` \\| `([0-9A-Z]{25})` \\|$")
	ex.txID, ex.txid = m[1], m[2]
	if cfg := find("configured secret", `(?m)^\s+callback_secret: (\S+)$`)[1]; cfg != ex.secret {
		t.Fatalf("the documented config's secret %q is not the example's %q", cfg, ex.secret)
	}
	return ex
}

// txidOf is the derivation docs/billing.md states.
func txidOf(id string) string {
	s := strings.ToUpper(strings.ReplaceAll(id, "-", ""))
	return s[len(s)-25:]
}

// TestPixCallbackDocExample holds docs/billing.md to what a running server
// does: the documented signature is the HMAC of the documented body with the
// documented secret and passes the server's check (the example's transaction
// does not exist there, so the answer is not_found, not unauthenticated); the
// same body for a real transaction, signed the documented way, pays it; the
// documented txid derivation is the one in the BR Code.
func TestPixCallbackDocExample(t *testing.T) {
	t.Parallel()
	ex := readPixDocExample(t)
	if got := sign(ex.secret, []byte(ex.body)); got != ex.signature {
		t.Fatalf("documented signature %s, but the HMAC of the documented body is %s", ex.signature, got)
	}
	if got := txidOf(ex.txID); got != ex.txid {
		t.Fatalf("documented txid of %s is %s, the rule gives %s", ex.txID, ex.txid, got)
	}
	s := servertest.New(t, withPix, func(c *config.Config) { c.Billing.Pix.CallbackSecret = ex.secret })
	callback := func(body, sig string) *servertest.Resp {
		return s.Do(t, "POST", "/v1/billing/pix/callback", body, "x-signature", sig)
	}
	callback(ex.body, ex.signature).WantError(t, http.StatusNotFound, "not_found")
	callback(ex.body, "sha256="+strings.Repeat("0", 64)).WantError(t, http.StatusUnauthorized, "unauthenticated")

	org := s.NewOrg(t)
	var doc struct {
		AmountCents int64 `json:"amount_cents"`
	}
	if err := json.Unmarshal([]byte(ex.body), &doc); err != nil {
		t.Fatalf("the documented body is not JSON: %v", err)
	}
	c := checkout(t, s, org.APIKey, "starter")
	if c.AmountCents != doc.AmountCents {
		t.Fatalf("the example pays %d cents, starter costs %d", doc.AmountCents, c.AmountCents)
	}
	if !strings.Contains(c.CopyPaste, "05"+"25"+txidOf(c.TransactionID)) {
		t.Fatalf("copy_paste %s lacks the txid %s derived as documented", c.CopyPaste, txidOf(c.TransactionID))
	}
	body := strings.Replace(ex.body, ex.txID, c.TransactionID, 1)
	var b api.SubscriptionBody
	callback(body, sign(ex.secret, []byte(body))).Want(t, http.StatusOK).JSON(t, &b)
	if b.Subscription.Plan.Key != "starter" || b.Subscription.Provider != "pix" {
		t.Fatalf("subscription = %+v, want starter paid by pix", b.Subscription)
	}
}
