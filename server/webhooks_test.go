package server_test

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/servertest"
	"licensectl/store"
)

// register creates an endpoint for rc and hands the receiver its secret.
func register(t *testing.T, f *rtFix, rc *receiver, events ...string) string {
	t.Helper()
	m := f.mgmt(t, "POST", "/webhooks", map[string]any{"url": rc.URL(), "events": events}).Want(t, http.StatusCreated).Map(t)
	rc.setSecret(m["secret"].(string))
	return m["id"].(string)
}

type deliveryPage struct {
	Data []struct {
		ID             string     `json:"id"`
		Event          string     `json:"event"`
		Status         string     `json:"status"`
		Attempts       int        `json:"attempts"`
		ResponseStatus int        `json:"response_status"`
		NextAttemptAt  *time.Time `json:"next_attempt_at"`
	} `json:"data"`
	Total int `json:"total"`
}

func deliveries(t *testing.T, f *rtFix, hook, query string) deliveryPage {
	t.Helper()
	var p deliveryPage
	f.mgmt(t, "GET", "/webhooks/"+hook+"/deliveries"+query, nil).Want(t, http.StatusOK).JSON(t, &p)
	return p
}

// eventually polls cond for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 200 {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	f := newRT(t, local)
	rc := newReceiver(t)

	t.Run("OK", func(t *testing.T) {
		m := f.mgmt(t, "POST", "/webhooks", map[string]any{"url": rc.URL(), "events": []string{"license.*", "user.login"}}).Want(t, http.StatusCreated).Map(t)
		servertest.WantKeys(t, m, "id", "application_id", "url", "events", "status", "secret", "created_at")
		sec := m["secret"].(string)
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sec, "whsec_"))
		if !strings.HasPrefix(sec, "whsec_") || err != nil || len(raw) != 24 {
			t.Fatalf("secret = %q", sec)
		}
		if m["status"] != "active" || m["application_id"] != f.appID {
			t.Fatalf("created = %v", m)
		}
		id := m["id"].(string)
		list := f.mgmt(t, "GET", "/webhooks", nil).Want(t, http.StatusOK).List(t)
		if len(list) != 1 {
			t.Fatalf("list = %v", list)
		}
		servertest.WantKeys(t, list[0], "id", "application_id", "url", "events", "status", "created_at")

		up := f.mgmt(t, "PATCH", "/webhooks/"+id, map[string]any{"events": []string{"*"}, "status": "disabled"}).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, up, "id", "application_id", "url", "events", "status", "created_at")
		if up["status"] != "disabled" || len(up["events"].([]any)) != 1 {
			t.Fatalf("patched = %v", up)
		}
		f.wantAudit(t, "webhook.created", 1)
		f.wantAudit(t, "webhook.disabled", 1)
		f.mgmt(t, "DELETE", "/webhooks/"+id, nil).Want(t, http.StatusOK)
		f.wantAudit(t, "webhook.deleted", 1)
		if list := f.mgmt(t, "GET", "/webhooks", nil).Want(t, http.StatusOK).List(t); len(list) != 0 {
			t.Fatalf("after delete: %v", list)
		}
	})
	t.Run("OKEvents", func(t *testing.T) {
		var names []string
		f.s.As(t, f.org.APIKey, "GET", "/v1/mgmt/webhooks/events", nil).Want(t, http.StatusOK).JSON(t, &names)
		for _, want := range []string{"license.activated", "webhook.test", "user.login_failed", "runtime.replay_rejected", "member.added"} {
			if !slices.Contains(names, want) {
				t.Errorf("events lack %s", want)
			}
		}
		if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "*") }) {
			t.Errorf("events list a family: %v", names)
		}
	})
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"ErrValidationEventsEmpty", map[string]any{"url": rc.URL(), "events": []string{}}, "events"},
		{"ErrValidationEventsMissing", map[string]any{"url": rc.URL()}, "events"},
		{"ErrValidationEventUnknown", map[string]any{"url": rc.URL(), "events": []string{"license.melted"}}, "events"},
		{"ErrValidationURL", map[string]any{"url": "not a url", "events": []string{"*"}}, "url"},
		{"ErrValidationURLScheme", map[string]any{"url": "ftp://example.com/x", "events": []string{"*"}}, "url"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantFieldError(t, f.mgmt(t, "POST", "/webhooks", c.body), c.field)
		})
	}
	t.Run("ErrNotFound", func(t *testing.T) {
		f.mgmt(t, "DELETE", "/webhooks/"+missingID, nil).WantError(t, http.StatusNotFound, "not_found")
		f.mgmt(t, "PATCH", "/webhooks/"+missingID, map[string]any{"status": "active"}).WantError(t, http.StatusNotFound, "not_found")
		f.mgmt(t, "GET", "/webhooks/"+missingID+"/deliveries", nil).WantError(t, http.StatusNotFound, "not_found")
		f.mgmt(t, "POST", "/webhooks/"+missingID+"/test", nil).WantError(t, http.StatusNotFound, "not_found")
	})
	t.Run("ErrValidationStatus", func(t *testing.T) {
		id := register(t, f, rc, "*")
		wantFieldError(t, f.mgmt(t, "PATCH", "/webhooks/"+id, map[string]any{"status": "paused"}), "status")
		wantFieldError(t, f.mgmt(t, "GET", "/webhooks/"+id+"/deliveries?status=lost", nil), "status")
	})
}

// TestWebhookURLRefused: with the defaults (https only, no private targets),
// every private, loopback, link-local, CGNAT, IPv4-mapped target and a name
// resolving to loopback is refused at registration.
func TestWebhookURLRefused(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	for _, u := range []string{
		"https://127.0.0.1/hook", "https://10.1.2.3/hook", "https://169.254.169.254/latest", "https://100.64.0.1/hook",
		"https://[::1]/hook", "https://[::ffff:127.0.0.1]/hook", "https://localhost/hook", "https://0.0.0.0/hook",
		"https://192.168.1.1:8443/hook", "http://93.184.215.14/hook",
	} {
		t.Run("ErrValidation "+u, func(t *testing.T) {
			wantFieldError(t, f.mgmt(t, "POST", "/webhooks", map[string]any{"url": u, "events": []string{"*"}}), "url")
		})
	}
	t.Run("OK", func(t *testing.T) {
		// A public literal address passes registration; nothing is sent to it here.
		f.mgmt(t, "POST", "/webhooks", map[string]any{"url": "https://93.184.215.14/hook", "events": []string{"plan.created"}}).Want(t, http.StatusCreated)
	})
}

// TestWebhookFamilies: each event family reaches a subscriber and not a
// non-subscriber, signed, with the payload of docs/design.md §9.
func TestWebhookFamilies(t *testing.T) {
	t.Parallel()
	f := newRT(t, local)
	lic, usr, all := newReceiver(t), newReceiver(t), newReceiver(t)
	register(t, f, lic, "license.*")
	register(t, f, usr, "user.registered", "user.login")
	register(t, f, all, "*")

	key := f.license(t, planOpts{})
	d := lic.next(t, "license.created")
	if d.Data["application_id"] != f.appID || d.Data["environment"] != "production" || d.Data["audit_id"] == nil {
		t.Fatalf("data = %v", d.Data)
	}
	l, _ := d.Data["license"].(map[string]any)
	servertest.WantKeys(t, l, "id", "key", "status", "plan", "user", "devices_count", "activated_at", "expires_at", "maintenance_expires_at", "created_at", "updated_at")
	if l["key"] != key || !strings.HasPrefix(d.UserAgent, "licensectl/") {
		t.Fatalf("license = %v, user-agent %q", l, d.UserAgent)
	}
	if _, err := time.Parse(time.RFC3339, d.Raw["timestamp"].(string)); err != nil {
		t.Fatalf("timestamp %v", d.Raw["timestamp"])
	}
	all.next(t, "license.created")

	f.register(t, "ann@example.com")
	u := usr.next(t, "user.registered")
	if um, _ := u.Data["user"].(map[string]any); um["email"] != "ann@example.com" || um["password_hash"] != nil {
		t.Fatalf("user = %v", u.Data)
	}
	f.activate(t, key, "fp-1")
	lic.next(t, "license.activated")
	all.next(t, "license.activated")
	dev := f.device(t, "fp-1")
	f.setStatus(t, "devices", dev.ID, "blocked")
	all.next(t, "device.blocked")
	f.setStatus(t, "licenses", f.ids[key], "suspended")
	lic.next(t, "license.suspended")
	f.setStatus(t, "licenses", f.ids[key], "active")
	lic.next(t, "license.reinstated")

	usr.none(t, "license.created", 300*time.Millisecond)
	lic.none(t, "user.registered", 0)
	lic.none(t, "device.blocked", 0)
}

// TestWebhookRetry: a 500 is retried after the schedule with the same
// webhook-id, and the delivery record counts both attempts.
func TestWebhookRetry(t *testing.T) {
	t.Parallel()
	f := newRT(t, local, func(c *config.Config) { c.Webhooks.RetrySchedule = []time.Duration{time.Minute} })
	rc := newReceiver(t)
	rc.answer = func(n int) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	}
	hook := register(t, f, rc, "plan.created")
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "P"}).Want(t, http.StatusCreated)
	first := rc.next(t, "plan.created")
	eventually(t, "the failure recorded", func() bool {
		p := deliveries(t, f, hook, "?status=pending")
		return p.Total == 1 && p.Data[0].Attempts == 1 && p.Data[0].ResponseStatus == 500
	})
	f.s.Clock().Advance(time.Minute)
	second := rc.next(t, "plan.created")
	if first.ID != second.ID || first.ID == "" {
		t.Fatalf("webhook-id %q then %q", first.ID, second.ID)
	}
	eventually(t, "delivered", func() bool {
		p := deliveries(t, f, hook, "?status=delivered")
		return p.Total == 1 && p.Data[0].Attempts == 2 && p.Data[0].ResponseStatus == 204
	})

	t.Run("OKFailedThenManualRetry", func(t *testing.T) {
		rc.answer = func(int) int { return http.StatusBadGateway }
		f.mgmt(t, "POST", "/plans", map[string]any{"name": "Q"}).Want(t, http.StatusCreated)
		rc.next(t, "plan.created")
		f.s.Clock().Advance(time.Minute)
		rc.next(t, "plan.created")
		var id string
		eventually(t, "failed after 2 attempts", func() bool {
			p := deliveries(t, f, hook, "?status=failed")
			if p.Total == 1 {
				id = p.Data[0].ID
			}
			return p.Total == 1 && p.Data[0].Attempts == 2
		})
		rc.answer = func(int) int { return http.StatusOK }
		f.mgmt(t, "POST", "/webhooks/"+hook+"/deliveries/"+id+"/retry", nil).Want(t, http.StatusOK)
		if d := rc.next(t, "plan.created"); d.ID != id {
			t.Fatalf("retried %q, want %q", d.ID, id)
		}
		eventually(t, "delivered by hand", func() bool {
			p := deliveries(t, f, hook, "?status=delivered")
			return p.Total == 2 && p.Data[0].Attempts == 3
		})
		f.mgmt(t, "POST", "/webhooks/"+hook+"/deliveries/"+missingID+"/retry", nil).WantError(t, http.StatusNotFound, "not_found")
	})
}

// TestWebhookGoneDisables: 410 disables the endpoint at once, with the audit
// entry; later events are not queued for it.
func TestWebhookGoneDisables(t *testing.T) {
	t.Parallel()
	f := newRT(t, local)
	rc := newReceiver(t)
	rc.answer = func(int) int { return http.StatusGone }
	hook := register(t, f, rc, "plan.*")
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "P"}).Want(t, http.StatusCreated)
	rc.next(t, "plan.created")
	eventually(t, "disabled", func() bool {
		l := f.mgmt(t, "GET", "/webhooks", nil).Want(t, http.StatusOK).List(t)
		return l[0]["status"] == store.WebhookDisabled
	})
	f.wantAudit(t, "webhook.disabled", 1)
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "Q"}).Want(t, http.StatusCreated)
	if p := deliveries(t, f, hook, ""); p.Total != 1 {
		t.Fatalf("deliveries to a disabled endpoint: %d", p.Total)
	}
	// Re-enabling resumes the waiting delivery.
	rc.answer = func(int) int { return http.StatusOK }
	f.mgmt(t, "PATCH", "/webhooks/"+hook, map[string]any{"status": "active"}).Want(t, http.StatusOK)
	rc.next(t, "plan.created")
}

// TestWebhookDisableAfter: an endpoint failing without a break for
// webhooks.disable_after is disabled, on the injected clock.
func TestWebhookDisableAfter(t *testing.T) {
	t.Parallel()
	f := newRT(t, local, func(c *config.Config) {
		c.Webhooks.RetrySchedule = []time.Duration{time.Hour, time.Hour, time.Hour}
		c.Webhooks.DisableAfter = 90 * time.Minute
	})
	rc := newReceiver(t)
	rc.answer = func(int) int { return http.StatusServiceUnavailable }
	hook := register(t, f, rc, "plan.created")
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "P"}).Want(t, http.StatusCreated)
	rc.next(t, "plan.created")
	f.s.Clock().Advance(time.Hour)
	rc.next(t, "plan.created")
	// Once the second attempt is recorded, whatever it decided about the
	// endpoint is decided (no fixed wait for the record).
	eventually(t, "the second attempt recorded", func() bool {
		p := deliveries(t, f, hook, "")
		return p.Total == 1 && p.Data[0].Attempts == 2
	})
	if l := f.mgmt(t, "GET", "/webhooks", nil).Want(t, http.StatusOK).List(t); l[0]["status"] != "active" {
		t.Fatalf("disabled after 1h of failure: %v", l[0])
	}
	f.s.Clock().Advance(time.Hour)
	rc.next(t, "plan.created")
	eventually(t, "disabled after 2h", func() bool {
		return f.mgmt(t, "GET", "/webhooks", nil).Want(t, http.StatusOK).List(t)[0]["status"] == "disabled"
	})
	f.wantAudit(t, "webhook.disabled", 1)
	if p := deliveries(t, f, hook, "?status=pending"); p.Total != 1 || p.Data[0].Attempts != 3 {
		t.Fatalf("pending = %+v", p)
	}
}

// TestWebhookRedirectNotFollowed: a 3xx is a failed attempt, and the target
// of the redirect hears nothing.
func TestWebhookRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	f := newRT(t, local)
	target := newReceiver(t)
	hop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target.URL(), http.StatusFound) })
	redir := newReceiver(t)
	redir.srv.Config.Handler = hop
	m := f.mgmt(t, "POST", "/webhooks", map[string]any{"url": redir.URL(), "events": []string{"plan.created"}}).Want(t, http.StatusCreated).Map(t)
	target.setSecret(m["secret"].(string))
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "P"}).Want(t, http.StatusCreated)
	eventually(t, "the 302 recorded", func() bool {
		p := deliveries(t, f, m["id"].(string), "")
		return p.Total == 1 && p.Data[0].ResponseStatus == http.StatusFound && p.Data[0].Status == "pending"
	})
	target.none(t, "plan.created", 300*time.Millisecond)
}

// TestWebhookSlowReceiver: an endpoint that does not answer holds at most
// its own two sends; another endpoint's deliveries go through meanwhile. Six
// workers give the one application three (half), two of them the slow
// endpoint's.
func TestWebhookSlowReceiver(t *testing.T) {
	t.Parallel()
	f := newRT(t, local, func(c *config.Config) { c.Webhooks.Workers = 6 })
	slow, fast := newReceiver(t), newReceiver(t)
	slow.block = make(chan struct{})
	register(t, f, slow, "plan.created")
	register(t, f, fast, "plan.created")
	for i := range 5 {
		f.mgmt(t, "POST", "/plans", map[string]any{"name": "P" + string(rune('a'+i))}).Want(t, http.StatusCreated)
	}
	for range 5 {
		fast.next(t, "plan.created")
	}
}

// TestWebhookPing: the test ping's three outcomes.
func TestWebhookPing(t *testing.T) {
	t.Parallel()
	f := newRT(t, local)
	rc := newReceiver(t)
	hook := register(t, f, rc, "license.created")
	type result struct {
		Success        bool   `json:"success"`
		DeliveryID     string `json:"delivery_id"`
		Status         string `json:"status"`
		ResponseStatus int    `json:"response_status"`
	}
	ping := func(t *testing.T) result {
		var r result
		f.mgmt(t, "POST", "/webhooks/"+hook+"/test", nil).Want(t, http.StatusOK).JSON(t, &r)
		return r
	}
	t.Run("OK", func(t *testing.T) {
		r := ping(t)
		if !r.Success || r.Status != "delivered" || r.ResponseStatus != 200 || r.DeliveryID == "" {
			t.Fatalf("ping = %+v", r)
		}
		d := rc.next(t, "webhook.test")
		if d.ID != r.DeliveryID || d.Data["webhook_id"] != hook || d.Data["application_id"] != f.appID {
			t.Fatalf("ping delivery = %+v", d)
		}
	})
	t.Run("OKNon2xx", func(t *testing.T) {
		rc.answer = func(int) int { return http.StatusTeapot }
		if r := ping(t); r.Success || r.Status != "failed" || r.ResponseStatus != http.StatusTeapot {
			t.Fatalf("ping = %+v", r)
		}
	})
	t.Run("OKNoAnswer", func(t *testing.T) {
		rc.srv.Close()
		if r := ping(t); r.Success || r.Status != "failed" || r.ResponseStatus != 0 {
			t.Fatalf("ping = %+v", r)
		}
		p := deliveries(t, f, hook, "")
		if p.Total != 3 || p.Data[0].Event != "webhook.test" || p.Data[0].Attempts != 1 {
			t.Fatalf("deliveries = %+v", p)
		}
		if l := f.mgmt(t, "GET", "/webhooks", nil).Want(t, http.StatusOK).List(t); l[0]["status"] != "active" {
			t.Fatal("a failed ping disabled the endpoint")
		}
	})
}

// TestWebhookSurvivesRestart: a delivery whose send is cut short by a stop
// stays queued and arrives after a restart on the same file.
func TestWebhookSurvivesRestart(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.RateLimit.Enabled = false
	cfg.Signup.Challenge = "off"
	cfg.Server.ShutdownTimeout = 500 * time.Millisecond
	cfg.Webhooks.Timeout = 5 * time.Second
	local(&cfg)
	s := servertest.Start(t, cfg)
	f := attachRT(t, s)
	rc := newReceiver(t)
	rc.block = make(chan struct{})
	hook := register(t, f, rc, "plan.created")
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "P"}).Want(t, http.StatusCreated)
	eventually(t, "the send in flight", func() bool { return rc.inflight.Load() == 1 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	close(rc.block)
	rc.block = nil
	rc.mu.Unlock()

	s2 := servertest.Start(t, cfg)
	f.s = s2
	rc.next(t, "plan.created")
	eventually(t, "delivered after restart", func() bool {
		p := deliveries(t, f, hook, "?status=delivered")
		return p.Total == 1
	})
}

// TestWebhookObjectShapes: the object of a delivery is the management read
// of it (docs/design.md §9): the same keys and values as the list item (the
// organization's read, which has no list) fetched over HTTP right after the
// change; never a credential. The snapshots live in store, the wire types
// in server/api, and this holds the two together.
func TestWebhookObjectShapes(t *testing.T) {
	t.Parallel()
	f := newRT(t, local)
	rc := newReceiver(t)
	register(t, f, rc, "*")
	// same compares a delivery's object with the read of it.
	same := func(t *testing.T, d delivery, kind string, read map[string]any) {
		t.Helper()
		obj, _ := d.Data[kind].(map[string]any)
		servertest.WantKeys(t, obj, slices.Collect(maps.Keys(read))...)
		if !reflect.DeepEqual(obj, read) {
			t.Fatalf("%s carries %v, the read is %v", d.Type, obj, read)
		}
	}
	// item is the element of list whose id is id.
	item := func(t *testing.T, list []map[string]any, id string) map[string]any {
		t.Helper()
		for _, m := range list {
			if m["id"] == id {
				return m
			}
		}
		t.Fatalf("%s not in %v", id, list)
		return nil
	}
	org := func(t *testing.T, method, path string, body any) *servertest.Resp {
		t.Helper()
		return f.s.As(t, f.org.APIKey, method, "/v1/mgmt"+path, body)
	}

	t.Run("Plan", func(t *testing.T) {
		var ent struct {
			ID string `json:"entitlement_id"`
		}
		f.mgmt(t, "POST", "/entitlements", map[string]any{"key": "shape", "name": "Shape"}).Want(t, http.StatusCreated).JSON(t, &ent)
		var p struct {
			ID string `json:"plan_id"`
		}
		f.mgmt(t, "POST", "/plans", map[string]any{"name": "Shaped", "entitlement_ids": []string{ent.ID}}).Want(t, http.StatusCreated).JSON(t, &p)
		d := rc.next(t, "plan.created")
		same(t, d, "plan", item(t, f.mgmt(t, "GET", "/plans", nil).Want(t, http.StatusOK).List(t), p.ID))
		if ents, _ := d.Data["plan"].(map[string]any)["entitlements"].([]any); len(ents) != 1 || ents[0].(map[string]any)["name"] != "Shape" {
			t.Fatalf("plan entitlements = %v", ents)
		}
	})
	t.Run("Secret", func(t *testing.T) {
		var app struct {
			Environments []struct {
				ID string `json:"id"`
			} `json:"environments"`
		}
		f.mgmt(t, "GET", "", nil).Want(t, http.StatusOK).JSON(t, &app)
		var sec struct {
			ID        string `json:"secret_id"`
			Plaintext string `json:"plaintext"`
		}
		f.mgmt(t, "POST", "/secrets", map[string]any{"environment_id": app.Environments[0].ID, "label": "ci"}).Want(t, http.StatusCreated).JSON(t, &sec)
		d := rc.next(t, "secret.created")
		same(t, d, "secret", item(t, f.mgmt(t, "GET", "/secrets", nil).Want(t, http.StatusOK).List(t), sec.ID))
		f.mgmt(t, "DELETE", "/secrets/"+sec.ID, nil).Want(t, http.StatusOK)
		d = rc.next(t, "secret.revoked")
		same(t, d, "secret", item(t, f.mgmt(t, "GET", "/secrets", nil).Want(t, http.StatusOK).List(t), sec.ID))
		if d.Data["secret"].(map[string]any)["revoked_at"] == nil || strings.Contains(fmtJSON(d.Raw), sec.Plaintext) {
			t.Fatalf("secret.revoked = %v", d.Data)
		}
	})
	t.Run("APIKey", func(t *testing.T) {
		var key struct {
			ID        string `json:"key_id"`
			Plaintext string `json:"plaintext"`
		}
		org(t, "POST", "/api-keys", map[string]any{"label": "deploy"}).Want(t, http.StatusCreated).JSON(t, &key)
		d := rc.next(t, "api_key.created")
		same(t, d, "api_key", item(t, org(t, "GET", "/api-keys", nil).Want(t, http.StatusOK).List(t), key.ID))
		if strings.Contains(fmtJSON(d.Raw), key.Plaintext) {
			t.Fatalf("api_key.created carries the key: %v", d.Data)
		}
		org(t, "DELETE", "/api-keys/"+key.ID, nil).Want(t, http.StatusOK)
		same(t, rc.next(t, "api_key.revoked"), "api_key", item(t, org(t, "GET", "/api-keys", nil).Want(t, http.StatusOK).List(t), key.ID))
	})
	t.Run("Member", func(t *testing.T) {
		var m struct {
			ID string `json:"member_id"`
		}
		org(t, "POST", "/organizations/members", map[string]any{"email": "shape@example.com", "password": servertest.Password, "role": "viewer"}).
			Want(t, http.StatusCreated).JSON(t, &m)
		same(t, rc.next(t, "member.added"), "member", item(t, org(t, "GET", "/organizations/members", nil).Want(t, http.StatusOK).List(t), m.ID))
		org(t, "DELETE", "/organizations/members/"+m.ID, nil).Want(t, http.StatusOK)
		// The member is gone: its id is all there is to carry.
		same(t, rc.next(t, "member.removed"), "member", map[string]any{"id": m.ID})
	})
	t.Run("Organization", func(t *testing.T) {
		org(t, "PATCH", "/organizations/me", map[string]any{"name": "Shaped Org"}).Want(t, http.StatusOK)
		same(t, rc.next(t, "organization.updated"), "organization", org(t, "GET", "/organizations/me", nil).Want(t, http.StatusOK).Map(t))
	})
}

// fmtJSON is v encoded, to look for a string anywhere in a payload.
func fmtJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
