package sdktest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"licensectl/server/servertest"
	"licensectl/store"
)

// SigningFront stands in front of s and signs its answers as
// docs/design.md §15 says, with the key of the environment each request's
// x-api-key names (one of pubs), until the server signs them itself. It
// returns the front's URL.
func SigningFront(t testing.TB, s *servertest.Server, pubs ...string) string {
	t.Helper()
	keys := map[string]struct {
		kid  string
		priv ed25519.PrivateKey
	}{}
	for _, pub := range pubs {
		ra, err := s.Store().OpenRuntime(store.RuntimeOptions{}).ResolveApp(context.Background(), store.RuntimeClient{PublicKey: pub})
		if err != nil {
			t.Fatal(err)
		}
		keys[pub] = struct {
			kid  string
			priv ed25519.PrivateKey
		}{ra.Env.KeyID, ra.Env.SigningKey}
	}
	nonceRE := regexp.MustCompile(`^([a-z*][a-z0-9_.*-]*)=\([^)]*\);nonce="([!-~]{16,128})"$`)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequest(r.Method, s.URL+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		req.Host = r.Host
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h := w.Header()
		for k, vs := range resp.Header {
			h[k] = vs
		}
		m := nonceRE.FindStringSubmatch(r.Header.Get("Accept-Signature"))
		k, ok := keys[r.Header.Get("x-api-key")]
		if m != nil && ok {
			sum := sha256.Sum256(rb)
			h.Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
			comps, lines := `"@status"`, `"@status": `+strconv.Itoa(resp.StatusCode)+"\n"
			if ct := h.Get("Content-Type"); ct != "" {
				comps += ` "content-type"`
				lines += `"content-type": ` + ct + "\n"
			}
			comps += ` "content-digest" "@method";req "@authority";req "@path";req "@query";req "accept-signature";req`
			lines += `"content-digest": ` + h.Get("Content-Digest") + "\n" +
				`"@method";req: ` + r.Method + "\n" + `"@authority";req: ` + r.Host + "\n" +
				`"@path";req: ` + r.URL.EscapedPath() + "\n" + `"@query";req: ?` + r.URL.RawQuery + "\n" +
				`"accept-signature";req: ` + r.Header.Get("Accept-Signature") + "\n"
			if d := r.Header.Get("Content-Digest"); d != "" {
				comps += ` "content-digest";req`
				lines += `"content-digest";req: ` + d + "\n"
			}
			params := "(" + comps + ");created=" + strconv.FormatInt(time.Now().Unix(), 10) + `;keyid="` + k.kid + `";alg="ed25519";nonce="` + m[2] + `";tag="licensectl"`
			h.Set("Signature-Input", m[1]+"="+params)
			h.Set("Signature", m[1]+"=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(k.priv, []byte(lines+`"@signature-params": `+params)))+":")
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(rb)
	}))
	t.Cleanup(front.Close)
	return front.URL
}
