package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/api"
	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/bolt"
)

// hookReceiver counts what reaches it and answers 200.
func hookReceiver(t *testing.T) (string, *atomic.Int32) {
	var n atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("webhook-signature") == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		n.Add(1)
	}))
	t.Cleanup(rc.Close)
	return rc.URL + "/in", &n
}

// webhookScenario runs every webhook command and the organization audit
// log through c.
func webhookScenario(t *testing.T, c *cli) {
	url, hits := hookReceiver(t)
	c.ok("app", "create", "Studio", "--slug", "studio")

	var names []string
	c.json(&names, "webhook", "events")
	if !slices.Contains(names, "license.activated") || !slices.Contains(names, "webhook.test") {
		t.Fatalf("webhook events = %v", names)
	}

	var created api.WebhookCreated
	c.json(&created, "webhook", "create", "--app", "studio", "--url", url, "--events", "plan.*, license.created")
	if !strings.HasPrefix(created.Secret, "whsec_") || created.Status != "active" || len(created.Events) != 2 {
		t.Fatalf("webhook create = %+v", created)
	}
	out := c.ok("webhook", "create", "--app", "studio", "--url", url, "--events", "*")
	if !strings.Contains(out, "Secret:") || !strings.Contains(out, "shown only now") {
		t.Fatalf("webhook create table:\n%s", out)
	}
	c.fails(1, args("webhook", "create", "--app", "studio", "--url", url, "--events", "license.melted"), "validation_failed", "events")
	c.fails(1, args("webhook", "create", "--app", "studio", "--url", "ftp://example.com", "--events", "*"), "validation_failed", "url")
	c.fails(2, args("webhook", "update", "--app", "studio", created.ID), "nothing to change")

	var list []map[string]any
	c.json(&list, "webhook", "list", "--app", "studio")
	if len(list) != 2 {
		t.Fatalf("webhook list = %v", list)
	}
	for _, w := range list {
		if _, ok := w["secret"]; ok {
			t.Fatalf("webhook list shows a secret: %v", w)
		}
	}

	var ping api.WebhookTestResult
	c.json(&ping, "webhook", "test", "--app", "studio", created.ID)
	if !ping.Success || ping.Status != "delivered" || ping.ResponseStatus != 200 || hits.Load() == 0 {
		t.Fatalf("webhook test = %+v (hits %d)", ping, hits.Load())
	}

	// Nobody listens on port 1: the ping fails with no answer, status 0.
	var dead api.WebhookCreated
	c.json(&dead, "webhook", "create", "--app", "studio", "--url", "http://127.0.0.1:1/in", "--events", "plan.deleted")
	c.json(&ping, "webhook", "test", "--app", "studio", dead.ID)
	if ping.Success || ping.Status != "failed" || ping.ResponseStatus != 0 {
		t.Fatalf("webhook test without an answer = %+v", ping)
	}
	// The deliveries list says why no answer came.
	if out := c.ok("webhook", "deliveries", "--app", "studio", dead.ID); !strings.Contains(out, "connection refused") || !strings.Contains(out, "LATENCY") {
		t.Fatalf("deliveries of the unanswered ping:\n%s", out)
	}
	c.ok("webhook", "delete", "--app", "studio", dead.ID, "--yes")

	var upd api.Webhook
	c.json(&upd, "webhook", "update", "--app", "studio", created.ID, "--status", "disabled", "--events", "license.*")
	if upd.Status != "disabled" || len(upd.Events) != 1 || upd.Events[0] != "license.*" {
		t.Fatalf("webhook update = %+v", upd)
	}

	var page struct {
		Data  []api.Delivery `json:"data"`
		Total int            `json:"total"`
	}
	c.json(&page, "webhook", "deliveries", "--app", "studio", created.ID, "--status", "delivered")
	if page.Total != 1 || page.Data[0].Event != "webhook.test" || page.Data[0].Attempts != 1 {
		t.Fatalf("webhook deliveries = %+v", page)
	}
	if out := c.ok("webhook", "deliveries", "--app", "studio", created.ID); !strings.Contains(out, "webhook.test") {
		t.Fatalf("webhook deliveries table:\n%s", out)
	}
	if out := c.ok("webhook", "deliveries", "--app", "studio", created.ID, "-o", "csv"); !strings.HasPrefix(out, "id,") || !strings.Contains(out, ",webhook.test,") {
		t.Fatalf("webhook deliveries -o csv:\n%s", out)
	}
	if out := c.ok("webhook", "list", "--app", "studio", "-o", "csv"); !strings.HasPrefix(out, "id,") || !strings.Contains(out, created.ID) {
		t.Fatalf("webhook list -o csv:\n%s", out)
	}
	c.fails(1, args("webhook", "deliveries", "--app", "studio", created.ID, "--status", "lost"), "validation_failed")
	c.ok("webhook", "retry", "--app", "studio", created.ID, page.Data[0].ID)
	c.json(&page, "webhook", "deliveries", "--app", "studio", created.ID, "--status", "pending")
	if page.Total != 1 {
		t.Fatalf("after retry: %+v", page)
	}
	c.fails(1, args("webhook", "retry", "--app", "studio", created.ID, created.ID), "not_found")

	c.ok("webhook", "delete", "--app", "studio", created.ID, "--yes")
	c.json(&list, "webhook", "list", "--app", "studio")
	if len(list) != 1 {
		t.Fatalf("after delete: %v", list)
	}
	c.fails(1, args("webhook", "delete", "--app", "studio", created.ID, "--yes"), "not_found")

	// Without --app, audit list reads the organization's own log.
	var audit struct {
		Data []api.AuditEntry `json:"data"`
	}
	c.json(&audit, "audit", "list")
	if len(audit.Data) == 0 || !slices.ContainsFunc(audit.Data, func(e api.AuditEntry) bool { return e.Event == "organization.created" }) {
		t.Fatalf("org audit = %+v", audit.Data)
	}
	c.json(&audit, "audit", "list", "--app", "studio", "--event", "webhook.created")
	if len(audit.Data) != 3 {
		t.Fatalf("webhook.created entries = %d", len(audit.Data))
	}
}

func TestLocalWebhooks(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	c.env = []string{"LICENSECTL_WEBHOOKS_ALLOW_HTTP=true", "LICENSECTL_WEBHOOKS_ALLOW_PRIVATE_TARGETS=true"}
	c.ok("org", "create", "Acme", "--owner-email", "owner@acme.test", "--owner-password-file", passwordFile(t))
	webhookScenario(t, c)
}

func TestRemoteWebhooks(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t, func(c *config.Config) {
		c.Webhooks.AllowHTTP = true
		c.Webhooks.AllowPrivateTargets = true
	})
	org := srv.NewOrg(t)
	webhookScenario(t, newRemote(t, srv.URL, org.APIKey))
}

// The TUI registers endpoints through RegisterWebhook: locally the URL
// meets the server's rules before the store, which trusts them, sees it.
func TestLocalRegisterWebhookChecksTheURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "licensectl.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Studio"})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.AppRef{OrgID: org.ID, AppID: app.ID}
	l := local{localStore: db} // the default rules: https, no private targets
	for _, u := range []string{"http://hooks.example.com/in", "https://127.0.0.1/in"} {
		_, err := l.RegisterWebhook(ctx, ref, u, []string{"*"})
		if e := store.AsError(err); e == nil || e.Field != "url" {
			t.Errorf("RegisterWebhook(%s) = %v, want a validation error on url", u, err)
		}
	}
	if hooks, _ := db.ListWebhooks(ctx, ref); len(hooks) != 0 {
		t.Fatalf("a refused URL was stored: %+v", hooks)
	}
	l.cfg.Webhooks.AllowHTTP, l.cfg.Webhooks.AllowPrivateTargets = true, true
	w, err := l.RegisterWebhook(ctx, ref, "http://127.0.0.1:1/in", []string{"license.*"})
	if err != nil || w.Secret == "" {
		t.Fatalf("RegisterWebhook with the rules relaxed = %+v, %v", w, err)
	}
}

// TestRemoteFailingDeliveries: while an endpoint fails and retries remain,
// its delivery is pending with its attempts and last answer, which is what
// the README tells to look for; failed lists it only after the last retry.
func TestRemoteFailingDeliveries(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t, func(c *config.Config) {
		c.Webhooks.AllowHTTP = true
		c.Webhooks.AllowPrivateTargets = true
		c.Webhooks.RetrySchedule = []time.Duration{time.Hour}
	})
	var hits atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(rc.Close)
	c := newRemote(t, srv.URL, srv.NewOrg(t).APIKey)
	c.ok("app", "create", "Studio", "--slug", "studio")
	var hook api.WebhookCreated
	c.json(&hook, "webhook", "create", "--app", "studio", "--url", rc.URL+"/in", "--events", "plan.created")
	c.ok("plan", "create", "--app", "studio", "Pro")
	pending := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if pending = c.ok("webhook", "deliveries", "--app", "studio", hook.ID, "--status", "pending"); regexp.MustCompile(`plan\.created +pending +1 +500 `).MatchString(pending) {
			break
		}
	}
	if !regexp.MustCompile(`plan\.created +pending +1 +500 `).MatchString(pending) {
		t.Fatalf("a failing delivery is not listed as pending with 1 attempt and HTTP 500 (hits %d):\n%s", hits.Load(), pending)
	}
	if out := c.ok("webhook", "deliveries", "--app", "studio", hook.ID, "--status", "failed"); strings.Contains(out, "plan.created") {
		t.Fatalf("failed lists a delivery that still has a retry:\n%s", out)
	}
	srv.Clock().Advance(time.Hour)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if out := c.ok("webhook", "deliveries", "--app", "studio", hook.ID, "--status", "failed"); regexp.MustCompile(`plan\.created +failed +2 +500 `).MatchString(out) {
			return
		}
	}
	t.Fatalf("the delivery is not failed after its last retry (hits %d)", hits.Load())
}
