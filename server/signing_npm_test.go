package server_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"licensectl/server/httpsig"
)

// verifierDir holds the independent verifier: a pinned
// http-message-signatures (package-lock.json) that .ci/run installs with
// npm ci, and verify.mjs.
const verifierDir = "testdata/httpsig-verify"

// npmVerifier returns node's path, or skips (fails on CI) when node or the
// installed package is missing.
func npmVerifier(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	missing := ""
	if err != nil {
		missing = "no node on PATH (apt-get install nodejs)"
	} else if raw, err := os.ReadFile(filepath.Join(verifierDir, "node_modules", "http-message-signatures", "package.json")); err != nil ||
		!bytes.Contains(raw, []byte(`"version": "1.0.6"`)) {
		missing = "http-message-signatures 1.0.6 is not installed (npm ci --prefix server/" + verifierDir + ")"
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs the independent verifier: %s", missing)
		}
		t.Skip("SKIP independent RFC 9421 verifier: " + missing)
	}
	return node
}

type npmMessage struct {
	Method  string              `json:"method,omitempty"`
	URL     string              `json:"url,omitempty"`
	Status  int                 `json:"status,omitempty"`
	Headers map[string][]string `json:"headers"`
	Body    string              `json:"body_base64,omitempty"`
}

type npmCase struct {
	Name     string     `json:"name"`
	Request  npmMessage `json:"request"`
	Response npmMessage `json:"response"`
	want     bool
}

func lowerHeaders(h http.Header) map[string][]string {
	out := map[string][]string{}
	for k, v := range h {
		out[strings.ToLower(k)] = v
	}
	return out
}

func npmCaseOf(name string, r signedResp, want bool) npmCase {
	return npmCase{
		Name:     name,
		Request:  npmMessage{Method: r.req.Method, URL: r.req.URL.String(), Headers: lowerHeaders(r.req.Header)},
		Response: npmMessage{Status: r.Status, Headers: lowerHeaders(r.Header), Body: base64.StdEncoding.EncodeToString(r.Body)},
		want:     want,
	}
}

// TestSignedAnswersVerifiedIndependently: the npm http-message-signatures
// package, an RFC 9421 implementation of its own, verifies signed answers
// of activate, validate (valid and invalid), refresh, an entitlement check,
// a lease checkout and a 401 against a real listener, with the request as
// the ;req context and the environment's JWKS; a changed status or body
// fails (docs/design.md §15).
func TestSignedAnswersVerifiedIndependently(t *testing.T) {
	node := npmVerifier(t)
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 2, ents: []string{"pro"}})
	seatKey := f.license(t, planOpts{plan: map[string]any{"max_concurrent": 1, "lease_seconds": 60}})
	pinned := f.pinned(t, "")
	bearer := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

	var cases []npmCase
	good := func(name string, r signedResp, status int) signedResp {
		r.wantSigned(t, pinned, status) // the Go verifier agrees
		cases = append(cases, npmCaseOf(name, r, true))
		return r
	}
	var a session
	good("activate", f.signedDo(t, "POST", "/licenses/activate", f.activateBody(key, "npm-a")), http.StatusOK).JSON(t, &a)
	valid := good("validate valid", f.signedDo(t, "POST", "/sessions/validate", map[string]any{"access_token": a.AccessToken}), http.StatusOK)
	good("validate invalid", f.signedDo(t, "POST", "/sessions/validate", map[string]any{"access_token": "forged"}), http.StatusOK)
	good("entitlement check", f.signedDo(t, "GET", "/entitlements/check?key=pro", nil, bearer(a.AccessToken)...), http.StatusOK)
	good("refresh", f.signedDo(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": a.RefreshToken}), http.StatusOK)
	seat := f.activate(t, seatKey, "npm-seat")
	ts, n := f.replay()
	good("lease checkout", f.signedDo(t, "POST", "/leases", map[string]any{"timestamp": ts, "nonce": n}, bearer(seat.AccessToken)...), http.StatusCreated)
	good("401", f.signedDo(t, "GET", "/entitlements/check?key=pro", nil), http.StatusUnauthorized)

	changed := func(name string, mutate func(c *npmCase)) {
		c := npmCaseOf(name, valid, false)
		mutate(&c)
		cases = append(cases, c)
	}
	changed("status changed", func(c *npmCase) { c.Response.Status = http.StatusCreated })
	changed("body changed", func(c *npmCase) {
		c.Response.Body = base64.StdEncoding.EncodeToString([]byte(`{"valid":true,"entitlements":["everything"]}`))
	})
	changed("body and digest changed", func(c *npmCase) {
		body := []byte(`{"valid":true,"entitlements":["everything"]}`)
		c.Response.Body = base64.StdEncoding.EncodeToString(body)
		c.Response.Headers["content-digest"] = []string{httpsig.ContentDigest(body)}
	})
	changed("another request's nonce", func(c *npmCase) {
		c.Request.Headers["accept-signature"] = []string{`lc=();nonce="` + nonce() + `"`}
	})

	jwks := f.s.Do(t, "GET", "/v1/runtime/applications/"+f.appID+"/jwks.json", nil).Want(t, http.StatusOK).Body
	in, err := json.Marshal(map[string]any{"jwks": json.RawMessage(jwks), "cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "verify.mjs")
	cmd.Dir = verifierDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verify.mjs: %v\n%s", err, stderr.Bytes())
	}
	got := map[string]struct {
		Verified bool   `json:"verified"`
		Error    string `json:"error"`
	}{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct {
			Name     string `json:"name"`
			Verified bool   `json:"verified"`
			Error    string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("verifier line %q: %v", sc.Text(), err)
		}
		got[line.Name] = struct {
			Verified bool   `json:"verified"`
			Error    string `json:"error"`
		}{line.Verified, line.Error}
	}
	for _, c := range cases {
		r, ok := got[c.Name]
		switch {
		case !ok:
			t.Errorf("%s: the verifier said nothing", c.Name)
		case r.Verified != c.want:
			t.Errorf("%s: verified %v (%s), want %v", c.Name, r.Verified, r.Error, c.want)
		default:
			t.Logf("%s: verified %v %s", c.Name, r.Verified, r.Error)
		}
	}
}
