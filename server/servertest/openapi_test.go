package servertest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRequestsAreValidated: a request the document refuses may be answered
// with an error, but an answer of success to it is reported, as is a
// request without the credential its operation names.
func TestRequestsAreValidated(t *testing.T) {
	v := newValidatingTransport(t, "http://127.0.0.1:1").(*validatingTransport)
	errBody := []byte(`{"error":{"code":"validation_failed","message":"m","title":"t","reason":"validation_failed","action":"a","retry_after_seconds":0}}`)
	created := []byte(`{"application_id":"a1"}`)
	cases := []struct {
		name, body, auth string
		status           int
		answer           []byte
		wantErr          string
	}{
		{"valid and created", `{"name":"A"}`, "Bearer k", http.StatusCreated, created, ""},
		{"unknown field refused", `{"name":"A","zz":1}`, "Bearer k", http.StatusBadRequest, errBody, ""},
		{"unknown field accepted", `{"name":"A","zz":1}`, "Bearer k", http.StatusCreated, created, "accepted (201) a request the document refuses"},
		{"required field missing, accepted", `{"slug":"a"}`, "Bearer k", http.StatusCreated, created, "accepted (201)"},
		{"no credential, accepted", `{"name":"A"}`, "", http.StatusCreated, created, "security requirements failed"},
		{"undocumented status", `{"name":"A"}`, "Bearer k", http.StatusTeapot, errBody, "status"},
	}
	for _, c := range cases {
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/v1/mgmt/applications", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp := &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(""))}
		err = v.validate(req, []byte(c.body), resp, c.answer)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.wantErr)
		}
	}
}
