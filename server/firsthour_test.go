package server_test

import (
	"net/http"
	"strings"
	"testing"

	"licensectl/server/servertest"
)

// Issue 25 #1: each refusal of a webhook target names the setting that
// would allow it, so local testing finds its way.
func TestWebhookRefusalNamesSetting(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	app := newApp(t, s, org.APIKey, "Hooks")
	for _, tc := range []struct{ url, key string }{
		{"http://93.184.215.14/hook", "webhooks.allow_http"},
		{"https://127.0.0.1/hook", "webhooks.allow_private_targets"},
	} {
		r := s.As(t, org.APIKey, "POST", "/v1/mgmt/applications/"+app+"/webhooks", map[string]any{"url": tc.url, "events": []string{"*"}})
		r.WantError(t, http.StatusBadRequest, "validation_failed")
		if !strings.Contains(string(r.Body), tc.key) {
			t.Errorf("refusal of %s does not name %s: %s", tc.url, tc.key, r.Body)
		}
	}
}

// Issue 25 #4: the event registry is no organization's data: the operator
// reads it with or without naming an organization.
func TestWebhookEventsOperator(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	op := s.OperatorToken()
	for _, hdr := range [][]string{nil, {"x-organization-id", org.ID}} {
		var names []string
		s.As(t, op, "GET", "/v1/mgmt/webhooks/events", nil, hdr...).Want(t, http.StatusOK).JSON(t, &names)
		if len(names) == 0 || !strings.Contains(strings.Join(names, " "), "license.created") {
			t.Fatalf("events with %v: %q", hdr, names)
		}
	}
	// Routes that read an organization still want one.
	s.As(t, op, "GET", "/v1/mgmt/applications", nil).WantError(t, http.StatusBadRequest, "validation_failed")
}
