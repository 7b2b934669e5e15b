package server_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/server/httpsig"
	"licensectl/server/servertest"
)

// signedResp is an answer to a request that asked for a signature, with
// the request as sent, so that it can be verified as a client does.
type signedResp struct {
	*servertest.Resp
	req *http.Request
}

// signedDo sends a runtime request with Accept-Signature (label lc, a fresh
// nonce) and the production public key; hdr overrides headers.
func (f *rtFix) signedDo(t *testing.T, method, path string, body any, hdr ...string) signedResp {
	t.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, f.s.URL+"/v1/runtime"+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("x-api-key", f.pub)
	req.Header.Set("Accept-Signature", `lc=();nonce="`+nonce()+`"`)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := f.s.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return signedResp{Resp: &servertest.Resp{Status: res.StatusCode, Header: res.Header, Body: b}, req: req}
}

// verify checks r as a client pinning keys does.
func (r signedResp) verify(keys map[string]ed25519.PublicKey) (httpsig.Params, error) {
	msg := httpsig.RequestMessage(r.req)
	return httpsig.VerifyAnswer(httpsig.KeyMap(keys), &httpsig.Message{Status: r.Status, Header: r.Header}, r.Body, &msg)
}

func (r signedResp) wantSigned(t *testing.T, keys map[string]ed25519.PublicKey, status int) signedResp {
	t.Helper()
	r.Want(t, status)
	p, err := r.verify(keys)
	if err != nil {
		t.Fatalf("%s %s answered %d %s: %v", r.req.Method, r.req.URL.Path, r.Status, r.Body, err)
	}
	if p.Tag != "licensectl" || p.Alg != "ed25519" {
		t.Fatalf("params %+v", p)
	}
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("a signed answer with Cache-Control %q", cc)
	}
	return r
}

func wantUnsigned(t *testing.T, r *servertest.Resp) {
	t.Helper()
	for _, h := range []string{"Signature", "Signature-Input", "Content-Digest"} {
		if v := r.Header.Get(h); v != "" {
			t.Fatalf("an unsigned answer carries %s: %s", h, v)
		}
	}
}

// TestRuntimeSignedAnswers: every runtime answer to a request carrying
// Accept-Signature verifies with the environment's JWKS key over the
// request's nonce (docs/design.md §15), successes and errors alike; no
// header, nothing signed; invalid_application and a malformed header go
// unsigned.
func TestRuntimeSignedAnswers(t *testing.T) {
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 3, ents: []string{"pro"}})
	seatKey := f.license(t, planOpts{maxDevices: 3, plan: map[string]any{"max_concurrent": 1, "lease_seconds": 60}})
	pinned := f.pinned(t, "")
	devPinned := f.pinned(t, "?environment=development")
	bearer := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

	var a session
	f.signedDo(t, "POST", "/licenses/activate", f.activateBody(key, "sig-a")).wantSigned(t, pinned, http.StatusOK).JSON(t, &a)
	seat := f.activate(t, seatKey, "sig-seat")
	var lease struct {
		LeaseID string `json:"lease_id"`
	}
	ts, n := f.replay()
	f.signedDo(t, "POST", "/leases", map[string]any{"timestamp": ts, "nonce": n}, bearer(seat.AccessToken)...).
		wantSigned(t, pinned, http.StatusCreated).JSON(t, &lease)

	tests := []struct {
		name         string
		method, path string
		body         any
		hdr          []string
		status       int
		code         string
	}{
		{"init", "POST", "/applications/init", nil, nil, http.StatusOK, ""},
		{"validate valid", "POST", "/sessions/validate", map[string]any{"access_token": a.AccessToken}, nil, http.StatusOK, ""},
		{"validate invalid", "POST", "/sessions/validate", map[string]any{"access_token": "not-a-token"}, nil, http.StatusOK, ""},
		{"entitlement check", "GET", "/entitlements/check?key=pro", nil, bearer(a.AccessToken), http.StatusOK, ""},
		{"entitlement check 401", "GET", "/entitlements/check?key=pro", nil, nil, http.StatusUnauthorized, "session_invalid"},
		{"refresh 401", "POST", "/sessions/refresh", map[string]any{"refresh_token": "nope"}, nil, http.StatusUnauthorized, ""},
		{"activate 404", "POST", "/licenses/activate", f.activateBody("7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYE", "sig-b"), nil, http.StatusNotFound, "not_found"},
		{"bad JSON 400", "POST", "/sessions/validate", "{", nil, http.StatusBadRequest, ""},
		{"lease heartbeat", "POST", "/leases/" + lease.LeaseID + "/heartbeat", nil, bearer(seat.AccessToken), http.StatusOK, ""},
		{"lease release 204", "DELETE", "/leases/" + lease.LeaseID, nil, bearer(seat.AccessToken), http.StatusNoContent, ""},
		{"JWKS", "GET", "/applications/" + f.appID + "/jwks.json", nil, []string{"x-api-key", ""}, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run("OK "+tt.name, func(t *testing.T) {
			r := f.signedDo(t, tt.method, tt.path, tt.body, tt.hdr...).wantSigned(t, pinned, tt.status)
			if tt.code != "" {
				r.WantError(t, tt.status, tt.code)
			}
		})
	}
	t.Run("OK refresh", func(t *testing.T) {
		var s session
		f.signedDo(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": a.RefreshToken}).wantSigned(t, pinned, http.StatusOK).JSON(t, &s)
		if s.AccessToken == "" {
			t.Fatal("no access token")
		}
	})
	t.Run("OK development key", func(t *testing.T) {
		r := f.signedDo(t, "POST", "/applications/init", nil, "x-api-key", f.devPub).wantSigned(t, devPinned, http.StatusOK)
		if _, err := r.verify(pinned); !errors.Is(err, httpsig.ErrNotGenuine) {
			t.Fatalf("a development answer verified with the production key: %v", err)
		}
	})
	t.Run("OK large answer", func(t *testing.T) {
		ents := make([]string, 120)
		for i := range ents {
			ents[i] = fmt.Sprintf("feature.%03d.%s", i, strings.Repeat("x", 40))
		}
		big := f.activate(t, f.license(t, planOpts{ents: ents}), "sig-big")
		r := f.signedDo(t, "POST", "/sessions/validate", map[string]any{"access_token": big.AccessToken}).wantSigned(t, pinned, http.StatusOK)
		if len(r.Body) < 6000 || r.Header.Get("Content-Length") != fmt.Sprint(len(r.Body)) {
			t.Fatalf("%d bytes, Content-Length %s", len(r.Body), r.Header.Get("Content-Length"))
		}
	})
	t.Run("OK no header nothing signed", func(t *testing.T) {
		r := f.do(t, "POST", "/sessions/validate", map[string]any{"access_token": a.AccessToken}).Want(t, http.StatusOK)
		wantUnsigned(t, r)
	})
	t.Run("ErrInvalidApplication unsigned", func(t *testing.T) {
		r := f.signedDo(t, "POST", "/sessions/validate", map[string]any{"access_token": a.AccessToken}, "x-api-key", "app_pub_live_unknown")
		r.WantError(t, http.StatusUnauthorized, "invalid_application")
		wantUnsigned(t, r.Resp)
	})
	t.Run("ErrValidation accept-signature", func(t *testing.T) {
		body := f.activateBody(key, "sig-malformed")
		for _, h := range []string{`lc=()`, `lc=();nonce="short"`, `lc=();nonce="` + strings.Repeat("n", 129) + `"`, `(((`, `a=();nonce="0123456789abcdef", b=();nonce="0123456789abcdef"`} {
			r := f.signedDo(t, "POST", "/licenses/activate", body, "Accept-Signature", h)
			r.WantError(t, http.StatusBadRequest, "validation_failed")
			wantUnsigned(t, r.Resp)
			if !strings.Contains(strings.ToLower(string(r.Body)), "accept-signature") {
				t.Fatalf("Accept-Signature %s: %s does not name the header", h, r.Body)
			}
		}
		// Nothing happened: the activation's nonce is still unused and
		// the device unbound.
		f.signedDo(t, "POST", "/licenses/activate", body).wantSigned(t, pinned, http.StatusOK)
	})
	t.Run("OK request content-digest covered", func(t *testing.T) {
		body := map[string]any{"access_token": a.AccessToken}
		raw, _ := json.Marshal(body)
		r := f.signedDo(t, "POST", "/sessions/validate", body, "Content-Digest", httpsig.ContentDigest(raw)).wantSigned(t, pinned, http.StatusOK)
		if !strings.Contains(r.Header.Get("Signature-Input"), `"content-digest";req`) {
			t.Fatalf("Signature-Input %s", r.Header.Get("Signature-Input"))
		}
	})
	t.Run("ErrValidation content-digest", func(t *testing.T) {
		body := f.activateBody(key, "sig-digest")
		r := f.signedDo(t, "POST", "/licenses/activate", body, "Content-Digest", httpsig.ContentDigest([]byte("something else"))).
			wantSigned(t, pinned, http.StatusBadRequest)
		r.WantError(t, http.StatusBadRequest, "validation_failed")
		if !strings.Contains(strings.ToLower(string(r.Body)), "content-digest") {
			t.Fatalf("%s does not name content-digest", r.Body)
		}
		// The mismatch refused the call before it acted: the same
		// activation goes through afterwards.
		f.signedDo(t, "POST", "/licenses/activate", body).wantSigned(t, pinned, http.StatusOK)
	})
	t.Run("ErrNotGenuine replayed answer", func(t *testing.T) {
		r := f.signedDo(t, "POST", "/sessions/validate", map[string]any{"access_token": a.AccessToken}).wantSigned(t, pinned, http.StatusOK)
		r.req.Header.Set("Accept-Signature", `lc=();nonce="`+nonce()+`"`)
		if _, err := r.verify(pinned); !errors.Is(err, httpsig.ErrNotGenuine) {
			t.Fatalf("an answer verified for another nonce: %v", err)
		}
	})
	t.Run("OK created is the server clock", func(t *testing.T) {
		f.s.Clock().Advance(time.Hour)
		p, err := f.signedDo(t, "POST", "/applications/init", nil).wantSigned(t, pinned, http.StatusOK).verify(pinned)
		if err != nil || p.Created != f.s.Clock().Now().Unix() {
			t.Fatalf("created %d, want %d (%v)", p.Created, f.s.Clock().Now().Unix(), err)
		}
	})
}
