package httpsig_test

import (
	"crypto/ed25519"
	"net/http"
	"testing"

	"licensectl/server/httpsig"
)

func BenchmarkSignAnswer(b *testing.B) {
	_, key, _ := ed25519.GenerateKey(nil)
	s, _ := httpsig.NewSigner(key, "0193a5c2-7d1e-7c3a-9b1f-2f6e8d9c0a11")
	req := httpsig.Message{Method: "POST", Authority: "127.0.0.1:8080", Path: "/v1/runtime/sessions/validate",
		Header: http.Header{"Accept-Signature": {`lc=();nonce="0123456789abcdef0123456789abcdef"`}}}
	body := []byte(`{"valid":true,"entitlements":["a","b","c"],"expires_at":"2026-12-07T10:00:00Z"}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		accept, err := httpsig.ParseAccept(req.Header["Accept-Signature"])
		if err != nil {
			b.Fatal(err)
		}
		h := http.Header{"Content-Type": {"application/json"}}
		if err := s.SignAnswer(h, 200, body, &req, accept, 1700000000); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEd25519Sign(b *testing.B) {
	_, key, _ := ed25519.GenerateKey(nil)
	msg := make([]byte, 600)
	for b.Loop() {
		ed25519.Sign(key, msg)
	}
}

func BenchmarkParseAccept(b *testing.B) {
	v := []string{`lc=();nonce="0123456789abcdef0123456789abcdef"`}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := httpsig.ParseAccept(v); err != nil {
			b.Fatal(err)
		}
	}
}
