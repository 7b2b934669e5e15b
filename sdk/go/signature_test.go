package licensing

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testSigner signs answers as docs/design.md §15 says the server does,
// written from the design apart from verify: the base is spelled out by hand.
type testSigner struct {
	kid  string
	priv ed25519.PrivateKey
}

func (s testSigner) sign(req *http.Request, status int, header http.Header, body []byte, nonce string, created int64) {
	sum := sha256.Sum256(body)
	header.Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
	comps := `"@status" "content-type" "content-digest" "@method";req "@authority";req "@path";req "@query";req "accept-signature";req`
	lines := "\"@status\": " + strconv.Itoa(status) + "\n" +
		"\"content-type\": " + header.Get("Content-Type") + "\n" +
		"\"content-digest\": " + header.Get("Content-Digest") + "\n" +
		"\"@method\";req: " + req.Method + "\n" +
		"\"@authority\";req: " + req.Host + "\n" +
		"\"@path\";req: " + req.URL.EscapedPath() + "\n" +
		"\"@query\";req: ?" + req.URL.RawQuery + "\n" +
		"\"accept-signature\";req: " + req.Header.Get("Accept-Signature") + "\n"
	if d := req.Header.Get("Content-Digest"); d != "" {
		comps += ` "content-digest";req`
		lines += "\"content-digest\";req: " + d + "\n"
	}
	params := "(" + comps + ");created=" + strconv.FormatInt(created, 10) + `;keyid="` + s.kid + `";alg="ed25519";nonce="` + nonce + `";tag="licensectl"`
	base := lines + "\"@signature-params\": " + params
	header.Set("Signature-Input", "lc="+params)
	header.Set("Signature", "lc=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(s.priv, []byte(base)))+":")
}

func newTestSigner(t *testing.T, kid string) (testSigner, ed25519.PublicKey) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testSigner{kid: kid, priv: priv}, pub
}

// TestVerify sends a request through prepare to a server that signs its
// answer, then checks that verify accepts it and refuses every change.
func TestVerify(t *testing.T) {
	signer, pub := newTestSigner(t, "k1")
	other, _ := newTestSigner(t, "k1")
	keys := map[string]ed25519.PublicKey{"k1": pub}
	type exchange struct {
		sr     *signedRequest
		resp   *http.Response
		body   []byte
		server *http.Request
	}
	do := func(t *testing.T, body []byte) exchange {
		var got *http.Request
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = r
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(`{"valid":true}`))
		}))
		defer srv.Close()
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/runtime/sessions/validate?x=1", rd)
		sr := prepare(req, body, newNonce())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return exchange{sr, resp, raw, got}
	}
	for _, withBody := range []bool{false, true} {
		var body []byte
		if withBody {
			body = []byte(`{"access_token":"x"}`)
		}
		x := do(t, body)
		nonce := x.sr.nonce
		created := time.Now().Unix()
		signed := func(s testSigner, status int, respBody []byte, n string) (*http.Response, []byte) {
			h := http.Header{"Content-Type": {"application/json"}}
			s.sign(x.server, status, h, respBody, n, created)
			return &http.Response{StatusCode: status, Header: h}, respBody
		}
		resp, rb := signed(signer, 200, x.body, nonce)
		v, err := verify(x.sr, resp, rb, keys)
		if err != nil || v.created.Unix() != created {
			t.Fatalf("body=%v: genuine answer: %v", withBody, err)
		}
		cases := map[string]func() (*http.Response, []byte){
			"unsigned": func() (*http.Response, []byte) {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}}, x.body
			},
			"other nonce": func() (*http.Response, []byte) { return signed(signer, 200, x.body, newNonce()) },
			"other key":   func() (*http.Response, []byte) { return signed(other, 200, x.body, nonce) },
			"status changed": func() (*http.Response, []byte) {
				r, b := signed(signer, 200, x.body, nonce)
				r.StatusCode = 201
				return r, b
			},
			"body changed": func() (*http.Response, []byte) {
				r, _ := signed(signer, 200, x.body, nonce)
				return r, []byte(`{"valid":false}`)
			},
			"digest and body changed": func() (*http.Response, []byte) {
				r, _ := signed(signer, 200, x.body, nonce)
				nb := []byte(`{"valid":false}`)
				sum := sha256.Sum256(nb)
				r.Header.Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
				return r, nb
			},
			"content type changed": func() (*http.Response, []byte) {
				r, b := signed(signer, 200, x.body, nonce)
				r.Header.Set("Content-Type", "text/html")
				return r, b
			},
			"second signature line": func() (*http.Response, []byte) {
				r, b := signed(signer, 200, x.body, nonce)
				r.Header.Add("Signature", "lc=:AAAA:")
				return r, b
			},
			"other tag": func() (*http.Response, []byte) {
				r, b := signed(signer, 200, x.body, nonce)
				r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `tag="licensectl"`, `tag="other"`, 1))
				return r, b
			},
			"fewer components": func() (*http.Response, []byte) {
				r, b := signed(signer, 200, x.body, nonce)
				r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"@status" `, ``, 1))
				return r, b
			},
		}
		for name, mk := range cases {
			r, b := mk()
			if _, err := verify(x.sr, r, b, keys); !errors.Is(err, ErrNotGenuine) {
				t.Errorf("body=%v: %s: %v, want ErrNotGenuine", withBody, name, err)
			}
		}
	}
}

// TestParseDictionary reads the shapes the server sends and refuses
// malformed ones.
func TestParseDictionary(t *testing.T) {
	ms, err := parseDictionary(`lc=("@status" "@method";req);created=1700000000;keyid="k\"1";alg="ed25519", sig=:AAEC:, b, t=tok/1`)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 4 || !ms[0].inner || len(ms[0].list) != 2 || ms[0].list[1].params[0].key != "req" ||
		ms[0].params[0].value != int64(1700000000) || ms[0].params[1].value != `k"1` || !bytes.Equal(ms[1].item.value.([]byte), []byte{0, 1, 2}) ||
		ms[2].item.value != true || ms[3].item.value != sfToken("tok/1") {
		t.Fatalf("parsed %+v", ms)
	}
	ps, _ := serializeParams(ms[0].params)
	if ps != `;created=1700000000;keyid="k\"1";alg="ed25519"` {
		t.Fatalf("serialized %s", ps)
	}
	for _, bad := range []string{`lc=(`, `lc="x`, `lc=:AA=A:`, `lc=1.5`, `Lc=1`, `a=1, a=2`, `a=1,`, `a=1;p=1;p=2`, `a="\x01"`, `a=1 b=2`} {
		if _, err := parseDictionary(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
