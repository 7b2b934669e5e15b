package server_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"licensectl/config"
	"licensectl/server"
	"licensectl/store"
)

// TestNullInRequestFields walks the route table's request bodies and sends
// null in each field, one at a time, to the real server: a field whose
// null means nothing is refused with 400 validation_failed naming it, as
// any other value of the wrong type is (`"ttl": null` on a machine-file
// checkout used to pass as "left out" and give the longest file). A field
// the schema declares nullable (a PATCH field whose null clears it) keeps
// its meaning and is not refused for its null.
func TestNullInRequestFields(t *testing.T) {
	const secret = "null-walk-callback-secret"
	f := newRT(t, func(c *config.Config) {
		c.Billing.Pix.CallbackSecret = secret
		// Registers complete-profile; no sign-in reaches the provider.
		c.Partner.Issuer, c.Partner.ClientID = "http://127.0.0.1:1", "client"
	})
	owner := f.s.OwnerToken(t, f.org) // onboarding and complete-profile are a member's, not an API key's
	key := f.license(t, planOpts{})
	sess := f.activate(t, key, "fp-null-walk")
	var plan struct {
		ID string `json:"plan_id"`
	}
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "Nullable"}).Want(t, http.StatusCreated).JSON(t, &plan)
	pathParam := regexp.MustCompile(`\{[A-Za-z]+\}`)
	bodies := server.RequestBodies()
	walked := 0
	for _, b := range bodies {
		path := pathParam.ReplaceAllStringFunc(b.Path, func(p string) string {
			switch p {
			case "{id}":
				return f.appID
			case "{planId}":
				return plan.ID
			}
			return store.NewID()
		})
		for _, field := range b.Fields {
			nullable := slices.Contains(b.Nullable, field)
			walked++
			t.Run(b.Method+" "+b.Path+"/"+field, func(t *testing.T) {
				body := `{"` + field + `":null}`
				var hdr []string
				switch b.Access {
				case "managed", "tierReader":
					hdr = []string{"Authorization", "Bearer " + owner}
				case "operator":
					hdr = []string{"Authorization", "Bearer " + f.s.OperatorToken()}
				case "runtimeApp":
					hdr = []string{"x-api-key", f.pub}
				case "runtimeUser":
					hdr = []string{"x-api-key", f.pub, "Authorization", "Bearer " + sess.AccessToken}
				}
				if b.Path == "/v1/billing/pix/callback" {
					hdr = append(hdr, "x-signature", sign(secret, []byte(body)))
				}
				r := f.s.Do(t, b.Method, path, body, hdr...)
				refusedForNull := r.Status == http.StatusBadRequest && strings.Contains(string(r.Body), field+" must be of type") && strings.Contains(string(r.Body), "not null")
				if nullable {
					if refusedForNull {
						t.Fatalf("%s %s: the nullable %s was refused for its null: %s", b.Method, path, field, r.Body)
					}
					return
				}
				wantFieldError(t, r, field)
			})
		}
	}
	if len(bodies) < 35 || walked < 110 {
		t.Fatalf("walked %d fields of %d bodies: the table should have more", walked, len(bodies))
	}
	t.Run("OK/NullClearsAPlanField", func(t *testing.T) {
		f.mgmt(t, "PATCH", "/plans/"+plan.ID, map[string]any{"duration_days": 30, "external_product_id": "sku-1"}).Want(t, http.StatusOK)
		f.mgmt(t, "PATCH", "/plans/"+plan.ID, map[string]any{"duration_days": nil, "external_product_id": nil}).Want(t, http.StatusOK)
		m := f.mgmt(t, "GET", "/plans/"+plan.ID, nil).Want(t, http.StatusOK).Map(t)
		if m["duration_days"] != nil || m["external_product_id"] != nil {
			t.Fatalf("after null, the plan = %v", m)
		}
	})
	t.Run("ErrValidationFailed/CheckoutTTLNull", func(t *testing.T) {
		ts, nonce := f.replay()
		wantFieldError(t, f.do(t, "POST", "/licenses/checkout", map[string]any{"ttl": nil, "encrypt": false, "timestamp": ts, "nonce": nonce}, "Authorization", "Bearer "+sess.AccessToken), "ttl")
	})
}
