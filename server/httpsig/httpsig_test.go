package httpsig_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"

	"licensectl/server/httpsig"
)

// testKeyEd25519 is test-key-ed25519 of RFC 9421 Appendix B.1.4 (its JWK
// "d", the seed).
func testKeyEd25519(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	seed, err := base64.RawURLEncoding.DecodeString("n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU")
	if err != nil {
		t.Fatal(err)
	}
	k := ed25519.NewKeyFromSeed(seed)
	if got := base64.RawURLEncoding.EncodeToString(k.Public().(ed25519.PublicKey)); got != "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs" {
		t.Fatalf("public key %s, want the RFC's", got)
	}
	return k
}

// rfcRequest is the example request of RFC 9421 Appendix B.2.
func rfcRequest() *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://example.com/foo?param=Value&Pet=dog", strings.NewReader(`{"hello": "world"}`))
	r.Header.Set("Date", "Tue, 20 Apr 2021 02:07:55 GMT")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Content-Digest", "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:")
	r.Header.Set("Content-Length", "18")
	return r
}

func comps(names ...string) []httpsig.Component {
	out := make([]httpsig.Component, len(names))
	for i, n := range names {
		out[i] = httpsig.Component{Name: strings.TrimSuffix(n, ";req"), Req: strings.HasSuffix(n, ";req")}
	}
	return out
}

func createdKeyID(created int64, keyID string) *httpsfv.Params {
	p := httpsfv.NewParams()
	p.Add("created", created)
	p.Add("keyid", keyID)
	return p
}

// TestRFC9421Ed25519 reproduces Appendix B.2.6 exactly: the signature base
// and the (deterministic) Ed25519 signature.
func TestRFC9421Ed25519(t *testing.T) {
	key := testKeyEd25519(t)
	msg := httpsig.RequestMessage(rfcRequest())
	base, err := httpsig.Base(nil, comps("date", "@method", "@path", "@authority", "content-type", "content-length"), createdKeyID(1618884473, "test-key-ed25519"), &msg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	if string(base) != want {
		t.Fatalf("base:\n%s\nwant:\n%s", base, want)
	}
	sig := base64.StdEncoding.EncodeToString(ed25519.Sign(key, base))
	if wantSig := "wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw=="; sig != wantSig {
		t.Fatalf("signature %s, want %s", sig, wantSig)
	}
}

// TestRFC9421Bases checks the signature bases of the RFC's other examples:
// @query (B.2.1), an absent query ("?", §2.2.7), and a response bound to
// its request with ;req (§2.4).
func TestRFC9421Bases(t *testing.T) {
	req := httpsig.RequestMessage(rfcRequest())
	noQuery := httpsig.RequestMessage(httptest.NewRequest(http.MethodGet, "http://www.example.com/path", nil))
	emptyQuery := httpsig.RequestMessage(httptest.NewRequest(http.MethodGet, "http://www.example.com:80/path?", nil))
	resp := httpsig.Message{Status: 503, Header: http.Header{
		"Date":           {"Tue, 20 Apr 2021 02:07:56 GMT"},
		"Content-Type":   {"application/json"},
		"Content-Length": {"62"},
		"Content-Digest": {"sha-512=:0Y6iCBzGg5rZtoXS95Ijz03mslf6KAMCloESHObfwnHJDbkkWWQz6PhhU9kxsTbARtY2PTBOzq24uJFpHsMuAg==:"},
	}}
	tests := []struct {
		name       string
		components []httpsig.Component
		params     *httpsfv.Params
		msg, req   *httpsig.Message
		want       string
	}{
		{"B.2.1 minimal", comps("@method", "@authority", "@path", "@query", "content-type"), createdKeyID(1618884473, "test-key-rsa-pss"), &req, nil,
			`"@method": POST
"@authority": example.com
"@path": /foo
"@query": ?param=Value&Pet=dog
"content-type": application/json
"@signature-params": ("@method" "@authority" "@path" "@query" "content-type");created=1618884473;keyid="test-key-rsa-pss"`},
		{"absent query", comps("@query"), httpsfv.NewParams(), &noQuery, nil, "\"@query\": ?\n\"@signature-params\": (\"@query\")"},
		{"empty query, default port", comps("@authority", "@query"), httpsfv.NewParams(), &emptyQuery, nil,
			"\"@authority\": www.example.com\n\"@query\": ?\n\"@signature-params\": (\"@authority\" \"@query\")"},
		{"2.4 response with req", comps("@status", "content-digest", "content-type", "@authority;req", "@method;req", "@path;req", "content-digest;req"),
			createdKeyID(1618884479, "test-key-ecc-p256"), &resp, &req,
			`"@status": 503
"content-digest": sha-512=:0Y6iCBzGg5rZtoXS95Ijz03mslf6KAMCloESHObfwnHJDbkkWWQz6PhhU9kxsTbARtY2PTBOzq24uJFpHsMuAg==:
"content-type": application/json
"@authority";req: example.com
"@method";req: POST
"@path";req: /foo
"content-digest";req: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:
"@signature-params": ("@status" "content-digest" "content-type" "@authority";req "@method";req "@path";req "content-digest";req);created=1618884479;keyid="test-key-ecc-p256"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := httpsig.Base(nil, tt.components, tt.params, tt.msg, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("base:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
	t.Run("ErrMissingComponent", func(t *testing.T) {
		if _, err := httpsig.Base(nil, comps("x-absent"), httpsfv.NewParams(), &req, nil); !errors.Is(err, httpsig.ErrMissingComponent) {
			t.Fatalf("err %v, want ErrMissingComponent", err)
		}
		if _, err := httpsig.Base(nil, comps("@method;req"), httpsfv.NewParams(), &resp, nil); !errors.Is(err, httpsig.ErrMissingComponent) {
			t.Fatalf("err %v, want ErrMissingComponent", err)
		}
	})
}

// TestRFC9530Digests checks Content-Digest against RFC 9530's examples
// (the body {"hello": "world"}, Appendix B) and the §2.4 response body.
func TestRFC9530Digests(t *testing.T) {
	body := []byte(`{"hello": "world"}`)
	if got, want := httpsig.ContentDigest(body), "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:"; got != want {
		t.Fatalf("ContentDigest %s, want %s", got, want)
	}
	tests := []struct {
		name   string
		header string
		body   string
		want   error
	}{
		{"sha-256", "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", `{"hello": "world"}`, nil},
		{"sha-512", "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:", `{"hello": "world"}`, nil},
		{"both", "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:", `{"hello": "world"}`, nil},
		{"response of RFC 9421 2.4", "sha-512=:0Y6iCBzGg5rZtoXS95Ijz03mslf6KAMCloESHObfwnHJDbkkWWQz6PhhU9kxsTbARtY2PTBOzq24uJFpHsMuAg==:", `{"busy": true, "message": "Your call is very important to us"}`, nil},
		{"empty body", "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:", "", nil},
		{"unknown algorithm beside a good one", "md5=:AAAA:, sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", `{"hello": "world"}`, nil},
		{"changed body", "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", `{"hello": "World"}`, httpsig.ErrDigestMismatch},
		{"one of two wrong", "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-512=:AAAA:", `{"hello": "world"}`, httpsig.ErrDigestMismatch},
		{"unknown algorithm alone", "md5=:AAAA:", `{"hello": "world"}`, httpsig.ErrDigestUnsupported},
		{"not a dictionary", "sha-256", `{}`, httpsig.ErrDigestMalformed},
		{"not bytes", `sha-256="X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="`, `{"hello": "world"}`, httpsig.ErrDigestMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := httpsig.CheckDigest([]string{tt.header}, []byte(tt.body)); !errors.Is(err, tt.want) {
				t.Fatalf("CheckDigest: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestParseAccept(t *testing.T) {
	nonce := strings.Repeat("n", 16)
	tests := []struct {
		name, header string
		want         httpsig.Accept
		ok           bool
	}{
		{"OK", `lc=();nonce="` + nonce + `"`, httpsig.Accept{Label: "lc", Nonce: nonce}, true},
		{"OK components ignored", `sig1=("@status" "content-type");nonce="` + nonce + `";tag="x"`, httpsig.Accept{Label: "sig1", Nonce: nonce}, true},
		{"OK longest nonce", `lc=();nonce="` + strings.Repeat("x", 128) + `"`, httpsig.Accept{Label: "lc", Nonce: strings.Repeat("x", 128)}, true},
		{"OK escapes", `lc=();nonce="abc\"def\\ghijklmnop"`, httpsig.Accept{Label: "lc", Nonce: `abc"def\ghijklmnop`}, true},
		{"no nonce", `lc=()`, httpsig.Accept{}, false},
		{"short nonce", `lc=();nonce="` + strings.Repeat("x", 15) + `"`, httpsig.Accept{}, false},
		{"long nonce", `lc=();nonce="` + strings.Repeat("x", 129) + `"`, httpsig.Accept{}, false},
		{"nonce a token", `lc=();nonce=abcdefghijklmnopq`, httpsig.Accept{}, false},
		{"nonce not printable", "lc=();nonce=\"abcdefghijklmnop\u00e9\"", httpsig.Accept{}, false},
		{"not an inner list", `lc="` + nonce + `"`, httpsig.Accept{}, false},
		{"two labels", `a=();nonce="` + nonce + `", b=();nonce="` + nonce + `"`, httpsig.Accept{}, false},
		{"garbage", `(((`, httpsig.Accept{}, false},
		{"empty", ``, httpsig.Accept{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := httpsig.ParseAccept([]string{tt.header})
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ParseAccept(%q) = %+v, %v; want %+v, ok %v", tt.header, got, err, tt.want, tt.ok)
			}
		})
	}
}

// signed signs an answer of status and body to req with key, as the
// server's middleware does.
func signed(t *testing.T, key ed25519.PrivateKey, req *http.Request, status int, contentType, body string) http.Header {
	t.Helper()
	s, err := httpsig.NewSigner(key, "kid-1")
	if err != nil {
		t.Fatal(err)
	}
	accept, err := httpsig.ParseAccept(req.Header.Values("Accept-Signature"))
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	msg := httpsig.RequestMessage(req)
	if err := s.SignAnswer(h, status, []byte(body), &msg, accept, 1700000000); err != nil {
		t.Fatal(err)
	}
	return h
}

func signingRequest(nonce string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://Licenses.Example.com:80/v1/runtime/sessions/validate", strings.NewReader(`{"access_token":"x"}`))
	r.Header.Set("Accept-Signature", `lc=();nonce="`+nonce+`"`)
	return r
}

// TestSignVerify signs answers and has VerifyAnswer accept them, then
// refuses every change an attacker between client and server could make.
func TestSignVerify(t *testing.T) {
	key := testKeyEd25519(t)
	_, other, _ := ed25519.GenerateKey(nil)
	keys := httpsig.KeyMap(map[string]ed25519.PublicKey{"kid-1": key.Public().(ed25519.PublicKey)})
	nonce := "0123456789abcdef0123"
	req := signingRequest(nonce)
	body := `{"valid":true}`
	good := signed(t, key, req, 200, "application/json", body)
	if got := good.Get("Signature-Input"); got != `lc=("@status" "content-type" "content-digest" "@method";req "@authority";req "@path";req "@query";req "accept-signature";req);created=1700000000;keyid="kid-1";alg="ed25519";nonce="0123456789abcdef0123";tag="licensectl"` {
		t.Fatalf("Signature-Input %s", got)
	}
	verify := func(h http.Header, status int, body string, req *http.Request) error {
		msg := httpsig.RequestMessage(req)
		_, err := httpsig.VerifyAnswer(keys, &httpsig.Message{Status: status, Header: h}, []byte(body), &msg)
		return err
	}
	t.Run("OK", func(t *testing.T) {
		msg := httpsig.RequestMessage(req)
		p, err := httpsig.VerifyAnswer(keys, &httpsig.Message{Status: 200, Header: good}, []byte(body), &msg)
		if err != nil || p.Created != 1700000000 || p.KeyID != "kid-1" || p.Nonce != nonce {
			t.Fatalf("VerifyAnswer = %+v, %v", p, err)
		}
	})
	t.Run("OK no content", func(t *testing.T) {
		h := signed(t, key, req, 204, "", "")
		if !strings.HasPrefix(h.Get("Signature-Input"), `lc=("@status" "content-digest" "@method";req`) {
			t.Fatalf("Signature-Input %s", h.Get("Signature-Input"))
		}
		if err := verify(h, 204, "", req); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("OK request digest", func(t *testing.T) {
		r := signingRequest(nonce)
		r.Header.Set("Content-Digest", httpsig.ContentDigest([]byte(`{"access_token":"x"}`)))
		h := signed(t, key, r, 200, "application/json", body)
		if !strings.Contains(h.Get("Signature-Input"), `"accept-signature";req "content-digest";req);`) {
			t.Fatalf("Signature-Input %s", h.Get("Signature-Input"))
		}
		if err := verify(h, 200, body, r); err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Digest", httpsig.ContentDigest([]byte(`{"access_token":"y"}`)))
		if err := verify(h, 200, body, r); !errors.Is(err, httpsig.ErrNotGenuine) {
			t.Fatalf("another request digest: %v", err)
		}
	})
	with := func(name, value string) http.Header {
		h := good.Clone()
		if value == "" {
			h.Del(name)
		} else {
			h.Set(name, value)
		}
		return h
	}
	otherKey := signed(t, other, req, 200, "application/json", body)
	unsignedDigest := http.Header{"Content-Type": {"application/json"}, "Content-Digest": {httpsig.ContentDigest([]byte(body))}}
	tests := []struct {
		name   string
		h      http.Header
		status int
		body   string
		req    *http.Request
	}{
		{"unsigned", http.Header{"Content-Type": {"application/json"}}, 200, body, req},
		{"digest only", unsignedDigest, 200, body, req},
		{"changed status", good, 201, body, req},
		{"changed body", good, 200, `{"valid":false}`, req},
		{"changed body and digest", with("Content-Digest", httpsig.ContentDigest([]byte(`{"valid":false}`))), 200, `{"valid":false}`, req},
		{"changed content type", with("Content-Type", "text/plain"), 200, body, req},
		{"content type dropped", with("Content-Type", ""), 200, body, req},
		{"another request's nonce", good, 200, body, signingRequest("another-nonce-0123456")},
		{"another path", good, 200, body, func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "http://licenses.example.com/v1/runtime/sessions/refresh", nil)
			r.Header.Set("Accept-Signature", `lc=();nonce="`+nonce+`"`)
			return r
		}()},
		{"another key", otherKey, 200, body, req},
		{"unknown keyid", with("Signature-Input", strings.Replace(good.Get("Signature-Input"), "kid-1", "kid-2", 1)), 200, body, req},
		{"no tag", with("Signature-Input", strings.Replace(good.Get("Signature-Input"), `;tag="licensectl"`, "", 1)), 200, body, req},
		{"fewer components", with("Signature-Input", strings.Replace(good.Get("Signature-Input"), ` "@query";req`, "", 1)), 200, body, req},
		{"signature garbled", with("Signature", "lc=:AAAA:"), 200, body, req},
		{"no signature", with("Signature", ""), 200, body, req},
		{"request asked for none", good, 200, body, httptest.NewRequest(http.MethodPost, "http://licenses.example.com/v1/runtime/sessions/validate", nil)},
	}
	for _, tt := range tests {
		t.Run("ErrNotGenuine "+tt.name, func(t *testing.T) {
			if err := verify(tt.h, tt.status, tt.body, tt.req); !errors.Is(err, httpsig.ErrNotGenuine) {
				t.Fatalf("VerifyAnswer: %v, want ErrNotGenuine", err)
			}
		})
	}
}
